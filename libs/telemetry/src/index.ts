export { batchOptionsFromEnv, isRecordingSpans, isTelemetryEnabled, otlpTracesUrl, spanProcessorsFromEnv, startTelemetry } from './start.js';
export type { TelemetryEnv, TelemetryHandle, TelemetryOptions } from './start.js';
export {
  contextFromTraceparent,
  currentTraceparent,
  extractTraceContext,
  injectTraceHeaders,
  spanContextFromTraceparent,
} from './propagation.js';
export type { TraceCarrier } from './propagation.js';
export { markSpanFailed, runInLinkedSpan, runInRootSpan, runInSpan } from './spans.js';
export type { RunInSpanOptions } from './spans.js';
export { REDACTED, REDACTED_PATHS, activeTraceFields, createLogger } from './logger.js';
export type { Logger, LoggerOptions } from './logger.js';
export { SpanKind } from '@opentelemetry/api';
export { inMemorySpans } from './in-memory.js';
export type { InMemorySpans, ReadableSpan } from './in-memory.js';
export { withLogFields } from './logger.js';
export { pooledRandomBytes, pooledRandomFraction, randomHex } from './random-pool.js';
export * from './metrics/index.js';
