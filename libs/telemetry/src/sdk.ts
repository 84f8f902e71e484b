import { createRequire } from 'node:module';
import type * as Core from '@opentelemetry/core';
import type * as OtlpExporter from '@opentelemetry/exporter-trace-otlp-proto';
import type * as SdkNode from '@opentelemetry/sdk-node';
import type * as SdkTrace from '@opentelemetry/sdk-trace';

type OtelSdk = typeof SdkNode & typeof SdkTrace & typeof OtlpExporter & Pick<typeof Core, 'W3CBaggagePropagator' | 'W3CTraceContextPropagator'>;

const require = createRequire(import.meta.url);
let loaded: OtelSdk | undefined;

/**
 * The OpenTelemetry SDK, its span processors and the OTLP exporter, loaded the first time tracing
 * is switched on or spans are collected: with tracing off (the default) a process only has the
 * no-op API, not the megabytes of SDK code. Loaded with `require`, the SDK registers its provider
 * through the CommonJS copy of `@opentelemetry/api`; our ESM code shares its globals (provider,
 * context manager, propagator), but a tracer it took from `trace.getTracer` BEFORE the start
 * would stay a no-op: ask for tracers when spans are made, never once at module load.
 */
export function otelSdk(): OtelSdk {
  loaded ??= {
    ...(require('@opentelemetry/sdk-node') as typeof SdkNode),
    ...(require('@opentelemetry/sdk-trace') as typeof SdkTrace),
    ...(require('@opentelemetry/exporter-trace-otlp-proto') as typeof OtlpExporter),
    ...(require('@opentelemetry/core') as typeof Core),
  } as OtelSdk;
  return loaded;
}
