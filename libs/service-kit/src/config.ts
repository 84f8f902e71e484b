import { z } from 'zod';
import { isLoopbackHost } from './loopback.js';
import { ApiKeySecret, Plan } from '@switchboard/contracts';
import { EVENT_STORE_URL_FORMS, isEventStoreServerUrl } from '@switchboard/eventstore';
import { parseSecretKey } from './secrets/secret-key.js';

const blankAsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
/** Unset and blank read as the default (or as unset when there is none). */
const variable = <T extends z.ZodType>(schema: T) => z.preprocess(blankAsUnset, schema);

/** A loopback WebSocket URL; the emulator's test root key must never be trusted elsewhere. */
const LoopbackWsUrl = z.string().refine((value) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'ws:' || url.protocol === 'wss:') && isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}, 'expected a ws:// URL on a literal loopback address (127.0.0.0/8 or [::1])');
const PORT_MESSAGE = 'expected a port number (0-65535)';
const Port = z.string().regex(/^\d{1,5}$/, PORT_MESSAGE).transform(Number).refine((n) => n <= 65_535, PORT_MESSAGE);
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: `expected ${values.slice(0, -1).map((v) => `"${v}"`).join(', ')}${values.length > 1 ? ' or ' : ''}"${values.at(-1)}"` });
/** Only the exact words: a typo must not silently open loopback to media fetches or webhooks. */
const Flag = oneOf(['true', 'false', '1', '0']);
const EventStoreUrl = z.string().refine(isEventStoreServerUrl, `expected ${EVENT_STORE_URL_FORMS}`);
const NatsUrls = z.string().refine(
  (value) => value.split(',').every((url) => /^(nats|tls|ws|wss):\/\/[^\s,]+$/.test(url.trim()) || /^[^\s:/,]+:\d{1,5}$/.test(url.trim())),
  'expected NATS server URLs, comma-separated (nats://host:4222)',
);
const SecretKey = z.string().refine((value) => {
  try {
    parseSecretKey(value);
    return true;
  } catch {
    return false;
  }
}, 'expected 32 bytes as 64 hex characters or base64 (make one with: openssl rand -hex 32)');
/** Milliseconds for every plan and/or per plan: `1000`, `free=3000,basic=2000`, `1000,enterprise=0`. */
const PerPlanMs = z
  .string()
  .regex(/^\s*(?:(?:free|basic|premium|enterprise)=)?\d{1,9}\s*(?:,\s*(?:(?:free|basic|premium|enterprise)=)?\d{1,9}\s*)*$/, 'expected whole milliseconds, or comma-separated <plan>=<ms> items (e.g. 1000,enterprise=0)');
const OperatorApiKey = z.string().refine((value) => ApiKeySecret.safeParse(value).success, 'expected 16 to 512 printable ASCII characters, no spaces (e.g. sbk_ and openssl rand -hex 24)');

/** The operating interface of `spec/operations.md`: every `SWITCHBOARD_*` variable, parsed once. */
const ConfigSchema = z.object({
  SWITCHBOARD_PORT: variable(Port.default(8080)),
  SWITCHBOARD_HOST: variable(z.string().optional()),
  SWITCHBOARD_DATA_DIR: variable(z.string().default('./data')),
  SWITCHBOARD_NATS_URL: variable(NatsUrls.optional()),
  SWITCHBOARD_EVENTSTORE_URL: variable(EventStoreUrl.optional()),
  SWITCHBOARD_CHAT_NETWORK: variable(oneOf(['whatsapp', 'emulator']).default('whatsapp')),
  SWITCHBOARD_EMULATOR_URL: variable(LoopbackWsUrl.optional()),
  SWITCHBOARD_EMULATOR_CONTROL_PORT: variable(Port.default(8090)),
  // The in-process emulator's WebSocket port (0: any free port, printed at start).
  SWITCHBOARD_EMULATOR_PORT: variable(Port.default(0)),
  // How the in-process emulator's contacts name themselves as senders (the real network: by LID).
  SWITCHBOARD_EMULATOR_ADDRESSING: variable(oneOf(['lid', 'pn']).default('lid')),
  SWITCHBOARD_SECRET_KEY: variable(SecretKey.optional()),
  SWITCHBOARD_BOOTSTRAP_API_KEY: variable(OperatorApiKey.optional()),
  SWITCHBOARD_ADMIN_API_KEY: variable(OperatorApiKey.optional()),
  SWITCHBOARD_DEFAULT_PLAN: variable(oneOf(Plan.options as readonly Plan[] as readonly [Plan, ...Plan[]]).default('enterprise')),
  SWITCHBOARD_SEND_DEADLINE_MS: variable(z.string().regex(/^[1-9]\d*$/, 'expected whole milliseconds (at least 1)').transform(Number).default(10_000)),
  // Safe pacing per session (kept as written; sessions reads it per plan): `<ms>` or `<plan>=<ms>` items, 0 = off.
  SWITCHBOARD_PACING_GAP_MS: variable(PerPlanMs.default('1000')),
  SWITCHBOARD_PACING_NEW_CONTACT_GAP_MS: variable(PerPlanMs.default('5000')),
  SWITCHBOARD_MEDIA_ALLOW_LOOPBACK: variable(Flag.default('false')),
  SWITCHBOARD_METRICS_PORT: variable(Port.optional()),
  SWITCHBOARD_SESSIONS_MAX_PER_REPLICA: variable(z.string().regex(/^[1-9]\d*$/, 'expected a whole number of sessions (at least 1)').transform(Number).optional()),
  // Stored sessions resumed at once after a start or a takeover; the others wait their turn.
  SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY: variable(z.string().regex(/^[1-9]\d*$/, 'expected a whole number of sessions (at least 1)').transform(Number).default(32)),
  SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK: variable(Flag.default('false')),
  SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE_MS: variable(z.string().regex(/^\s*\d+\s*(,\s*\d+\s*)*$/, 'expected comma-separated whole milliseconds').optional()),
});

/** Values never echoed in a problem line. */
const SECRET_VARIABLES = new Set(['SWITCHBOARD_SECRET_KEY', 'SWITCHBOARD_BOOTSTRAP_API_KEY', 'SWITCHBOARD_ADMIN_API_KEY']);
/** A URL's password (nats://user:password@…, postgres://user:password@…) is never shown either. */
const withoutPasswords = (value: string) => value.replace(/(\/\/[^:/@\s]*:)[^@\s]*@/g, '$1***@');

/** Every `SWITCHBOARD_*` variable the processes read (manifests are checked against it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(ConfigSchema.shape);

/** Each variable's default as the schema applies it (undefined: none); the README's table is checked against it. */
export const CONFIG_DEFAULTS: Readonly<Record<string, unknown>> = Object.fromEntries(
  Object.entries(ConfigSchema.shape).map(([name, schema]) => [name, (schema as z.ZodType).safeParse(undefined).data]),
);

export interface SwitchboardConfig {
  port: number;
  /** Undefined = the mode's default (127.0.0.1 embedded, 0.0.0.0 in a container). */
  host: string | undefined;
  dataDir: string;
  natsUrl: string | undefined;
  eventStoreUrl: string | undefined;
  chatNetwork: 'whatsapp' | 'emulator';
  emulatorUrl: string | undefined;
  emulatorControlPort: number;
  /** WebSocket port of an in-process emulator; 0 = any free port. */
  emulatorPort: number;
  /** Senders of an in-process emulator's contacts: by LID (number beside it) or by phone number. */
  emulatorAddressing: 'lid' | 'pn';
  secretKey: string | undefined;
  bootstrapApiKey: string | undefined;
  adminApiKey: string | undefined;
  defaultPlan: Plan;
  sendDeadlineMs: number;
  /** Least gap between a session's messages to different recipients, as configured (`<ms>` or `<plan>=<ms>` items; 0 = off). */
  pacingGapMs: string;
  /** Least gap between a session's first messages to new contacts, as configured (same form; 0 = off). */
  pacingNewContactGapMs: string;
  /** Most chat connections one sessions replica holds; undefined = no cap. */
  sessionsMaxPerReplica: number | undefined;
  /**
   * How many stored sessions a sessions process resumes at once (after a start, or taken over from
   * another replica); the others wait their turn in the background, connected on record.
   */
  sessionsResumeConcurrency: number;
  /**
   * Media URLs may point at loopback (127.0.0.0/8, ::1). Off by default (SSRF); for tests and
   * single-host trials that serve media from the same machine. Private, link-local and metadata
   * addresses stay refused either way.
   */
  mediaAllowLoopback: boolean;
  /**
   * Port of the `/metrics` endpoint of a process without an HTTP API (quota, sessions, messaging
   * in the distributed mode), bound on `host`. Unset = no such endpoint: the embedded process and
   * the gateway serve `/metrics` on `SWITCHBOARD_PORT` instead.
   */
  metricsPort: number | undefined;
  /**
   * Webhook URLs may point at loopback (127.0.0.0/8, ::1): tests and single-host trials only.
   * Private, link-local and metadata addresses stay refused either way.
   */
  webhookAllowLoopback: boolean;
  /** Waits before each webhook retry in ms (comma-separated); unset = the documented schedule. */
  webhookRetryScheduleMs: string | undefined;
}

/** A configuration that cannot start: one line per problem, for the operator (no stack). */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';

  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

function configProblems(issues: readonly z.core.$ZodIssue[], env: Record<string, string | undefined>): string[] {
  const lines = new Set<string>();
  for (const issue of issues) {
    const name = String(issue.path[0]);
    const raw = env[name];
    const shown = raw === undefined ? '' : SECRET_VARIABLES.has(name) ? ' (value not shown)' : `, got ${JSON.stringify(withoutPasswords(raw))}`;
    lines.add(`${name}: ${issue.message}${shown}`);
  }
  return [...lines];
}

/**
 * Reads the environment; a bad value stops the process with every problem named at once, one
 * line each: `SWITCHBOARD_PORT: expected a port number (0-65535), got "abc"` (secrets never shown).
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): SwitchboardConfig {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(configProblems(parsed.error.issues, env));
  const c = parsed.data;
  return {
    port: c.SWITCHBOARD_PORT,
    host: c.SWITCHBOARD_HOST,
    dataDir: c.SWITCHBOARD_DATA_DIR,
    natsUrl: c.SWITCHBOARD_NATS_URL,
    eventStoreUrl: c.SWITCHBOARD_EVENTSTORE_URL,
    chatNetwork: c.SWITCHBOARD_CHAT_NETWORK,
    emulatorUrl: c.SWITCHBOARD_EMULATOR_URL,
    emulatorControlPort: c.SWITCHBOARD_EMULATOR_CONTROL_PORT,
    emulatorPort: c.SWITCHBOARD_EMULATOR_PORT,
    emulatorAddressing: c.SWITCHBOARD_EMULATOR_ADDRESSING,
    secretKey: c.SWITCHBOARD_SECRET_KEY,
    bootstrapApiKey: c.SWITCHBOARD_BOOTSTRAP_API_KEY,
    adminApiKey: c.SWITCHBOARD_ADMIN_API_KEY,
    defaultPlan: c.SWITCHBOARD_DEFAULT_PLAN,
    sendDeadlineMs: c.SWITCHBOARD_SEND_DEADLINE_MS,
    pacingGapMs: c.SWITCHBOARD_PACING_GAP_MS.trim(),
    pacingNewContactGapMs: c.SWITCHBOARD_PACING_NEW_CONTACT_GAP_MS.trim(),
    sessionsMaxPerReplica: c.SWITCHBOARD_SESSIONS_MAX_PER_REPLICA,
    sessionsResumeConcurrency: c.SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY,
    mediaAllowLoopback: c.SWITCHBOARD_MEDIA_ALLOW_LOOPBACK === 'true' || c.SWITCHBOARD_MEDIA_ALLOW_LOOPBACK === '1',
    metricsPort: c.SWITCHBOARD_METRICS_PORT,
    webhookAllowLoopback: c.SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK === 'true' || c.SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK === '1',
    webhookRetryScheduleMs: c.SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE_MS,
  };
}
