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
  'credentials', 'creds', 'encryptionKey', 'text', 'caption', 'media', 'body',
];
export const REDACTED_PATHS: readonly string[] = SECRET_KEYS.flatMap((key) => {
  // Keys that are not identifiers (`x-api-key`) need bracket notation in redaction paths.
  const member = /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `["${key}"]`;
  return [member.startsWith('.') ? key : member, `*${member}`, `*.*${member}`];
});
export const REDACTED = '[REDACTED]';

/** pino JSON logs, tagged with the service and the active span's `trace_id`/`span_id`. */
export function createLogger(options: LoggerOptions): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: { service: options.service },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: [...REDACTED_PATHS], censor: REDACTED },
      mixin: activeTraceFields,
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
