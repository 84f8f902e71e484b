import { AsyncLocalStorage } from 'node:async_hooks';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { pino } from 'pino';
import type { DestinationStream, Level, Logger } from 'pino';

export type { Logger } from 'pino';

export interface LoggerOptions {
  service: string;
  level?: Level | 'silent';
  /** Where JSON lines go; stdout when omitted (tests pass a capture stream). */
  destination?: DestinationStream;
}

/**
 * Paths whose values never reach a log line: credentials, API keys and message bodies (a
 * message's text, caption or media is user content, not operational data). Covered at the
 * top level and up to two levels down (`req.headers.authorization`, `payload.message.text`).
 */
const SECRET_KEYS = [
  'authorization', 'Authorization', 'cookie', 'x-api-key', 'apiKey', 'api_key', 'password', 'secret',
  'credentials', 'creds', 'encryptionKey', 'secretKey', 'bootstrapApiKey', 'adminApiKey', 'token',
  // Signal/Noise key material as Baileys names it, should a driver object reach a log line.
  'noiseKey', 'signedIdentityKey', 'signedPreKey', 'advSecretKey', 'privKey', 'messageSecret',
  // User content: a message's text, caption, media (bytes or base64), buttons, footer, poll question.
  'text', 'caption', 'media', 'body', 'content', 'buttons', 'footer', 'question', 'base64', 'bytes',
];
export const REDACTED_PATHS: readonly string[] = SECRET_KEYS.flatMap((key) => {
  // Keys that are not identifiers (`x-api-key`) need bracket notation in redaction paths.
  const member = /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `["${key}"]`;
  return [member.startsWith('.') ? key : member, `*${member}`, `*.*${member}`];
});
export const REDACTED = '[REDACTED]';

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** `LOG_LEVEL` when it names a pino level, else `info` (a typo must not silence a process). */
export function levelFromEnv(value: string | undefined): Level | 'silent' {
  const level = value?.trim().toLowerCase() ?? '';
  return LEVELS.has(level) ? (level as Level | 'silent') : 'info';
}

/** pino JSON logs, tagged with the service and the active span's `trace_id`/`span_id`. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? levelFromEnv(process.env['LOG_LEVEL']),
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED_PATHS], censor: REDACTED },
      mixin: () => ({ ...activeTraceFields(), ...logFields.getStore() }),
    },
    options.destination ?? pino.destination(1),
  );
}

/** The active span's ids in the field names log backends correlate on; none outside a span. */
export function activeTraceFields(): Record<string, string> {
  const spanContext = trace.getActiveSpan()?.spanContext();
  if (!spanContext || !isSpanContextValid(spanContext)) return {};
  return { trace_id: spanContext.traceId, span_id: spanContext.spanId, trace_flags: `0${spanContext.traceFlags.toString(16)}` };
}

/** Fields every line logged inside `withLogFields` carries (`account_id` of the bus message being handled). */
const logFields = new AsyncLocalStorage<Readonly<Record<string, string>>>();

/**
 * Runs `work` with `fields` added to every log line written inside it, by any logger made by
 * `createLogger`: the bus binds the caller's `account_id` around each handler this way, so a
 * service's own logger needs no per-request child. Nested calls add to the outer fields.
 */
export function withLogFields<T>(fields: Readonly<Record<string, string>>, work: () => T): T {
  const outer = logFields.getStore();
  return logFields.run(outer ? { ...outer, ...fields } : fields, work);
}
