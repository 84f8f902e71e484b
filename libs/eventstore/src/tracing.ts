import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { categoryOf } from './event-store.js';

// A no-op tracer unless the host process registered an OpenTelemetry SDK.
const tracer = trace.getTracer('@switchboard/eventstore');

/** Runs an append inside a client span, so a slow or conflicting write shows in the trace. */
export function traceAppend<T>(system: string, stream: string, eventCount: number, append: () => Promise<T>): Promise<T> {
  const attributes = {
    'db.system.name': system,
    'db.operation.name': 'append',
    'eventstore.stream': stream,
    'eventstore.event_count': eventCount,
  };
  return tracer.startActiveSpan(`append ${categoryOf(stream)}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await append();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'append failed' });
      throw error;
    } finally {
      span.end();
    }
  });
}
