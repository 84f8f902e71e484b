import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, context, isSpanContextValid, trace } from '@opentelemetry/api';
import type { Context, Span } from '@opentelemetry/api';
import type { IncomingMessage } from 'node:http';
import { isRecordingSpans, randomHex } from '@switchboard/telemetry';

const tracer = () => trace.getTracer('@switchboard/gateway');

/** The SERVER span of one HTTP request and the context handlers and bus calls run in. */
export interface RequestTrace {
  readonly span: Span;
  readonly context: Context;
  /** W3C trace id (32 lower-case hex): the `X-Request-Id` and the error body's `requestId`. */
  readonly traceId: string;
}

/**
 * Starts the request's trace. Every request is a new trace: an inbound `traceparent` from the
 * internet is not trusted as a parent (a client could otherwise pick, and collide, the request
 * id an SRE searches for). With tracing off the OpenTelemetry API hands out an invalid span
 * context, so ids are minted here and wrapped in a non-recording span: the request id still
 * identifies exactly one request.
 */
export function startRequestTrace(method: string, path: string): RequestTrace {
  if (isRecordingSpans()) {
    const span = tracer().startSpan(method, { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': path } }, ROOT_CONTEXT);
    if (isSpanContextValid(span.spanContext())) return { span, context: trace.setSpan(ROOT_CONTEXT, span), traceId: span.spanContext().traceId };
  }
  // Ids of our own (no span, or no valid one). With tracing off nothing reads a context
  // (OpenTelemetry's context manager is then a no-op that always answers the root context), so
  // the root context is the request's, with no copy made.
  const ids = randomHex(24);
  const span = trace.wrapSpanContext({ traceId: ids.slice(0, 32), spanId: ids.slice(32), traceFlags: TraceFlags.NONE });
  return { span, context: isRecordingSpans() ? trace.setSpan(ROOT_CONTEXT, span) : ROOT_CONTEXT, traceId: span.spanContext().traceId };
}

/**
 * Names the span after the matched route and ends it with the response status. Once only: a
 * client that aborts can trigger both `onRequestAbort` and `onResponse`.
 */
export function endRequestTrace(requestTrace: RequestTrace, method: string, route: string | undefined, status: number): void {
  const { span } = requestTrace;
  if (!span.isRecording()) return;
  if (route) {
    span.updateName(`${method} ${route}`);
    span.setAttribute('http.route', route);
  }
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

const TRACE = Symbol('switchboard.requestTrace');
type Traced = IncomingMessage & { [TRACE]?: RequestTrace };

/**
 * The trace of a raw request, kept on the request itself: it is started (`genReqId`) before
 * fastify has a request object, and read by the hooks, the framework error handler and the
 * client error handler. A property, not a WeakMap: one ephemeron per request was GC work.
 */
export const rawTraces = {
  get: (raw: IncomingMessage): RequestTrace | undefined => (raw as Traced)[TRACE],
  set: (raw: IncomingMessage, requestTrace: RequestTrace): void => {
    (raw as Traced)[TRACE] = requestTrace;
  },
};

/** Runs `work` with the request's span active, so logs and bus calls join its trace. */
export function inRequestContext<T>(requestTrace: RequestTrace, work: () => T): T {
  return context.with(requestTrace.context, work);
}

/** A fresh W3C-style trace id (32 hex) for an answer no request span exists for. */
export function newRequestId(): string {
  return randomHex(16);
}
