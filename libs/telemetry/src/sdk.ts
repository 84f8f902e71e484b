import { createRequire } from 'node:module';

type OtelSdk = typeof import('@opentelemetry/sdk-node') &
  typeof import('@opentelemetry/sdk-trace') &
  typeof import('@opentelemetry/exporter-trace-otlp-proto') &
  Pick<typeof import('@opentelemetry/core'), 'W3CBaggagePropagator' | 'W3CTraceContextPropagator'>;

const require = createRequire(import.meta.url);
let loaded: OtelSdk | undefined;

/**
 * The OpenTelemetry SDK, its span processors and the OTLP exporter, loaded the first time tracing
 * is switched on or spans are collected: with tracing off (the default) a process only has the
 * no-op API, not the megabytes of SDK code.
 */
export function otelSdk(): OtelSdk {
  loaded ??= {
    ...(require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node')),
    ...(require('@opentelemetry/sdk-trace') as typeof import('@opentelemetry/sdk-trace')),
    ...(require('@opentelemetry/exporter-trace-otlp-proto') as typeof import('@opentelemetry/exporter-trace-otlp-proto')),
    ...(require('@opentelemetry/core') as typeof import('@opentelemetry/core')),
  } as OtelSdk;
  return loaded;
}
