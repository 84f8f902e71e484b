import { ProxyTracerProvider, context, propagation, trace } from '@opentelemetry/api';
import type { BatchSpanProcessorOptions, SpanProcessor } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { otelSdk } from './sdk.js';

/** Environment as read by `startTelemetry`; `process.env` unless a test passes its own. */
export type TelemetryEnv = Record<string, string | undefined>;

export interface TelemetryOptions {
  /** `service.name` of every span, unless `OTEL_SERVICE_NAME` says otherwise. */
  serviceName: string;
  env?: TelemetryEnv;
  /** Replaces the exporters named by the environment (tests pass an in-memory exporter). */
  spanProcessors?: SpanProcessor[];
}

export interface TelemetryHandle {
  /** True when an SDK was started; false for the no-op handle. */
  readonly enabled: boolean;
  /** Flushes pending spans and unregisters the global tracer, propagator and context manager. */
  shutdown(): Promise<void>;
}

const OFF: TelemetryHandle = { enabled: false, shutdown: async () => {} };

let recordingSpans = false;

/**
 * Whether this process records spans (`startTelemetry` started the SDK). When it does not,
 * `runInSpan` skips making spans nobody would see: with tracing off a request pays nothing for it.
 */
export function isRecordingSpans(): boolean {
  return recordingSpans;
}

/**
 * The on/off rule, in one place. Telemetry is ON when
 *  - `spanProcessors` are passed (tests), or
 *  - any of `OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`,
 *    `OTEL_TRACES_EXPORTER` is set to a non-blank value,
 * and `OTEL_SDK_DISABLED` is not `true`. Otherwise nothing is started: the OpenTelemetry API
 * stays no-op (no spans, no propagation), which costs nothing in the embedded default.
 */
export function isTelemetryEnabled(env: TelemetryEnv, hasExplicitProcessors: boolean): boolean {
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  if (hasExplicitProcessors) return true;
  const switches = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_TRACES_EXPORTER'];
  return switches.some((name) => (env[name]?.trim() ?? '') !== '');
}

/**
 * Starts the OpenTelemetry Node SDK for traces. Metrics and OTel logs stay off: logs go to
 * stdout through pino with trace ids (see `createLogger`). Propagation is always W3C
 * `traceparent`/`tracestate` + baggage, because that is what the bus headers and event
 * metadata carry; `OTEL_PROPAGATORS` is ignored on purpose.
 */
export function startTelemetry(options: TelemetryOptions): TelemetryHandle {
  const env = options.env ?? process.env;
  if (!isTelemetryEnabled(env, options.spanProcessors !== undefined)) return OFF;
  const { W3CBaggagePropagator, W3CTraceContextPropagator, startNodeSdk } = otelSdk();
  const sdk = startNodeSdk({
    spanProcessors: options.spanProcessors ?? spanProcessorsFromEnv(env),
    propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()],
    resourceAttributes: { [ATTR_SERVICE_NAME]: env['OTEL_SERVICE_NAME'] ?? options.serviceName },
    metricReaders: [],
    logRecordProcessors: [],
  });
  recordingSpans = true;
  return {
    enabled: true,
    async shutdown() {
      // SimpleSpanProcessor drops exports still waiting for async resource attributes when shut
      // down, so spans ended just before shutdown are flushed first.
      await flushGlobalTracerProvider();
      await sdk.shutdown();
      recordingSpans = false;
      // The SDK leaves its globals registered; dropping them lets a later start (tests,
      // restarts inside one process) register fresh ones instead of being silently refused.
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

async function flushGlobalTracerProvider(): Promise<void> {
  const provider = trace.getTracerProvider();
  const registered = provider instanceof ProxyTracerProvider ? provider.getDelegate() : provider;
  await (registered as { forceFlush?: () => Promise<void> }).forceFlush?.();
}

/**
 * Span processors named by `OTEL_TRACES_EXPORTER` (default `otlp`; `console`; `none`), built
 * from `env` rather than `process.env` so the passed environment is the one that counts.
 * OTLP goes over http/protobuf, the one protocol installed.
 */
export function spanProcessorsFromEnv(env: TelemetryEnv): SpanProcessor[] {
  const names = (env['OTEL_TRACES_EXPORTER'] ?? 'otlp').split(',').map((n) => n.trim()).filter(Boolean);
  if (names.includes('none')) return [];
  const { BatchSpanProcessor, ConsoleSpanExporter, OTLPTraceExporter, SimpleSpanProcessor } = otelSdk();
  const processors: SpanProcessor[] = [];
  if (names.includes('console')) processors.push(new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() }));
  if (names.length === 0 || names.includes('otlp')) {
    const exporter = new OTLPTraceExporter({ url: otlpTracesUrl(env), headers: otlpHeaders(env) });
    processors.push(new BatchSpanProcessor({ exporter, ...batchOptionsFromEnv(env) }));
  }
  return processors;
}

/** Per the OTLP spec: the signal endpoint is used as is, the base endpoint gets `/v1/traces`. */
export function otlpTracesUrl(env: TelemetryEnv): string {
  const tracesEndpoint = env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']?.trim();
  if (tracesEndpoint) return tracesEndpoint;
  const base = env['OTEL_EXPORTER_OTLP_ENDPOINT']?.trim() || 'http://localhost:4318';
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

function otlpHeaders(env: TelemetryEnv): Record<string, string> {
  const raw = env['OTEL_EXPORTER_OTLP_TRACES_HEADERS'] ?? env['OTEL_EXPORTER_OTLP_HEADERS'] ?? '';
  const headers: Record<string, string> = {};
  for (const pair of raw.split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  return headers;
}

const BATCH_VARIABLES = {
  OTEL_BSP_SCHEDULE_DELAY: 'scheduledDelayMillis',
  OTEL_BSP_EXPORT_TIMEOUT: 'exportTimeoutMillis',
  OTEL_BSP_MAX_QUEUE_SIZE: 'maxQueueSize',
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: 'maxExportBatchSize',
} as const;

/**
 * The standard `OTEL_BSP_*` batching variables. The SDK reads them only for processors it builds
 * itself; ours are built here (from `env`), so they are read here. Invalid values are ignored.
 */
export function batchOptionsFromEnv(env: TelemetryEnv): Partial<Omit<BatchSpanProcessorOptions, 'exporter'>> {
  const options: Partial<Record<(typeof BATCH_VARIABLES)[keyof typeof BATCH_VARIABLES], number>> = {};
  for (const [variable, option] of Object.entries(BATCH_VARIABLES)) {
    const value = Number(env[variable]?.trim() || Number.NaN);
    if (Number.isFinite(value) && value >= 0) options[option] = value;
  }
  return options;
}
