import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { otelSdk } from './sdk.js';

export type { ReadableSpan } from '@opentelemetry/sdk-trace';

/** Finished spans kept in memory, for tests: pass `processor` to `startTelemetry`. */
export interface InMemorySpans {
  processor: SpanProcessor;
  /** Every span ended so far (after flushing exports still in flight). */
  finished(): Promise<ReadableSpan[]>;
  reset(): void;
}

export function inMemorySpans(): InMemorySpans {
  const { InMemorySpanExporter, SimpleSpanProcessor } = otelSdk();
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter });
  return {
    processor,
    async finished() {
      // Exports wait for asynchronous resource attributes (host id); flushing makes them visible.
      await processor.forceFlush();
      return exporter.getFinishedSpans();
    },
    reset: () => exporter.reset(),
  };
}
