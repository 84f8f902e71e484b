import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { processMetrics, timeAsync } from '@switchboard/telemetry';
import { categoryOf } from './event-store.js';

// A no-op tracer unless the host process registered an OpenTelemetry SDK.
const tracer = trace.getTracer('@switchboard/eventstore');

/**
 * Runs an append inside a client span, so a slow or conflicting write shows in the trace, and
 * times it into `switchboard_eventstore_append_duration_seconds` (a conflict is outcome
 * `WrongExpectedRevisionError`).
 */
export function traceAppend<T>(system: string, stream: string, eventCount: number, append: () => Promise<T>): Promise<T> {
  const attributes = {
    'db.system.name': system,
    'db.operation.name': 'append',
    'eventstore.stream': stream,
    'eventstore.event_count': eventCount,
  };
  const category = categoryOf(stream);
  const timed = () => timeAsync(processMetrics().eventStoreAppendDuration, { system, category }, append);
  return tracer.startActiveSpan(`append ${category}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      return await timed();
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'append failed' });
      throw error;
    } finally {
      span.end();
    }
  });
}
