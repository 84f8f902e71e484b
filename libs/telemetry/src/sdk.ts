import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type * as Core from '@opentelemetry/core';
import type * as OtlpExporter from '@opentelemetry/exporter-trace-otlp-proto';
import type * as SdkNode from '@opentelemetry/sdk-node';
import type * as SdkTrace from '@opentelemetry/sdk-trace';

type OtelSdk = typeof SdkNode & typeof SdkTrace & typeof OtlpExporter & Pick<typeof Core, 'W3CBaggagePropagator' | 'W3CTraceContextPropagator'>;

const require = createRequire(import.meta.url);
let loaded: OtelSdk | undefined;

/**
 * A package's ES module build, loaded synchronously (`require` of an ES module). A plain `require`
 * would pick the CommonJS build, whose own copy of `@opentelemetry/api` would register the SDK's
 * provider on a proxy our code never asked: a tracer taken at module load would stay a no-op.
 */
function requireEsm<T>(specifier: string): T {
  return require(fileURLToPath(import.meta.resolve(specifier))) as T;
}

/**
 * The OpenTelemetry SDK, its span processors and the OTLP exporter, loaded the first time tracing
 * is switched on or spans are collected: with tracing off (the default) a process only has the
 * no-op API, not the megabytes of SDK code.
 */
export function otelSdk(): OtelSdk {
  loaded ??= {
    ...requireEsm<typeof SdkNode>('@opentelemetry/sdk-node'),
    ...requireEsm<typeof SdkTrace>('@opentelemetry/sdk-trace'),
    ...requireEsm<typeof OtlpExporter>('@opentelemetry/exporter-trace-otlp-proto'),
    ...requireEsm<typeof Core>('@opentelemetry/core'),
  } as OtelSdk;
  return loaded;
}
