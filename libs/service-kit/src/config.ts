import { z } from 'zod';
import { isLoopbackHost } from './loopback.js';
import { Plan } from '@switchboard/contracts';

/** A loopback WebSocket URL; the emulator's test root key must never be trusted elsewhere. */
const LoopbackWsUrl = z.url({ protocol: /^wss?$/ }).refine(
  (value) => isLoopbackHost(new URL(value).hostname),
  'must point at a literal loopback address (127.0.0.0/8 or [::1])',
);
const Port = z.coerce.number().int().min(0).max(65_535);
const blankAsUnset = (value: unknown) => (typeof value === 'string' && value.trim() === '' ? undefined : value);
const optional = (schema: z.ZodType<string>) => z.preprocess(blankAsUnset, schema.optional());

/** The operating interface of `spec/operations.md`: every `SWITCHBOARD_*` variable, parsed once. */
const ConfigSchema = z.object({
  SWITCHBOARD_PORT: Port.default(8080),
  SWITCHBOARD_HOST: optional(z.string()),
  SWITCHBOARD_DATA_DIR: z.string().min(1).default('./data'),
  SWITCHBOARD_NATS_URL: optional(z.string()),
  SWITCHBOARD_EVENTSTORE_URL: optional(z.string()),
  SWITCHBOARD_CHAT_NETWORK: z.enum(['whatsapp', 'emulator']).default('whatsapp'),
  SWITCHBOARD_EMULATOR_URL: optional(LoopbackWsUrl),
  SWITCHBOARD_EMULATOR_CONTROL_PORT: Port.default(8090),
  // How the in-process emulator's contacts name themselves as senders (the real network: by LID).
  SWITCHBOARD_EMULATOR_ADDRESSING: z.preprocess(blankAsUnset, z.enum(['lid', 'pn']).default('lid')),
  SWITCHBOARD_SECRET_KEY: optional(z.string()),
  SWITCHBOARD_BOOTSTRAP_API_KEY: optional(z.string()),
  SWITCHBOARD_ADMIN_API_KEY: optional(z.string()),
  SWITCHBOARD_DEFAULT_PLAN: Plan.default('enterprise'),
  SWITCHBOARD_SEND_DEADLINE_MS: z.coerce.number().int().min(1).default(10_000),
  // Only the exact words: a typo must not silently open loopback to media fetches.
  SWITCHBOARD_MEDIA_ALLOW_LOOPBACK: z.enum(['true', 'false', '1', '0']).default('false'),
  SWITCHBOARD_METRICS_PORT: z.preprocess(blankAsUnset, Port.optional()),
  // Only the exact words, as for media: a typo must not open loopback to webhook deliveries.
  SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK: z.enum(['true', 'false', '1', '0']).default('false'),
  SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE_MS: optional(z.string().regex(/^\s*\d+\s*(,\s*\d+\s*)*$/, 'must be comma-separated whole milliseconds')),
});

/** Every `SWITCHBOARD_*` variable the processes read (manifests are checked against it). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(ConfigSchema.shape);

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
  /** Senders of an in-process emulator's contacts: by LID (number beside it) or by phone number. */
  emulatorAddressing: 'lid' | 'pn';
  secretKey: string | undefined;
  bootstrapApiKey: string | undefined;
  adminApiKey: string | undefined;
  defaultPlan: Plan;
  sendDeadlineMs: number;
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

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads the environment; a bad value stops the process with every problem named at once. */
export function loadConfig(env: Record<string, string | undefined> = process.env): SwitchboardConfig {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
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
    emulatorAddressing: c.SWITCHBOARD_EMULATOR_ADDRESSING,
    secretKey: c.SWITCHBOARD_SECRET_KEY,
    bootstrapApiKey: c.SWITCHBOARD_BOOTSTRAP_API_KEY,
    adminApiKey: c.SWITCHBOARD_ADMIN_API_KEY,
    defaultPlan: c.SWITCHBOARD_DEFAULT_PLAN,
    sendDeadlineMs: c.SWITCHBOARD_SEND_DEADLINE_MS,
    mediaAllowLoopback: c.SWITCHBOARD_MEDIA_ALLOW_LOOPBACK === 'true' || c.SWITCHBOARD_MEDIA_ALLOW_LOOPBACK === '1',
    metricsPort: c.SWITCHBOARD_METRICS_PORT,
    webhookAllowLoopback: c.SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK === 'true' || c.SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK === '1',
    webhookRetryScheduleMs: c.SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE_MS,
  };
}
