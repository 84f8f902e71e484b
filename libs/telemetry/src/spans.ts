import { INVALID_SPAN_CONTEXT, ROOT_CONTEXT, SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Attributes, Context, Link, Span } from '@opentelemetry/api';
import { spanContextFromTraceparent } from './propagation.js';
import { isRecordingSpans } from './start.js';

const TRACER_NAME = '@switchboard/telemetry';

export interface RunInSpanOptions {
  kind?: SpanKind;
  attributes?: Attributes;
  links?: Link[];
  /** Parent context; the active one when omitted. */
  parent?: Context;
}

/** What `work` gets when no span is recorded: every call on it does nothing. */
const NOT_RECORDED: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Runs `work` inside a new active span and ends it when `work` settles. A thrown error is
 * recorded on the span (status ERROR) and rethrown unchanged. With tracing off no span is made,
 * and the parent context is not entered either: without the SDK, OpenTelemetry's context
 * manager is a no-op that always answers the root context.
 */
export function runInSpan<T>(name: string, options: RunInSpanOptions, work: (span: Span) => Promise<T> | T): Promise<T> {
  // Not an async function: with tracing off a call (two per bus round trip) makes no promise of its own.
  if (!isRecordingSpans()) {
    try {
      return Promise.resolve(work(NOT_RECORDED));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }
  return runInRecordedSpan(name, options, work);
}

async function runInRecordedSpan<T>(name: string, options: RunInSpanOptions, work: (span: Span) => Promise<T> | T): Promise<T> {
  const parent = options.parent ?? context.active();
  const span = trace.getTracer(TRACER_NAME).startSpan(
    name,
    { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes, links: options.links },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (error) {
    markSpanFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** Records `error` on `span` without its message when the message may carry user data. */
export function markSpanFailed(span: Span, error: unknown): void {
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : undefined;
  span.setStatus({ code: SpanStatusCode.ERROR, message: code ?? (error as Error)?.name ?? 'error' });
  if (error instanceof Error) span.recordException(error);
}

/**
 * For work that happens later than the request that caused it (receipts, projections,
 * recovery): a new span in the current trace (or a new trace) that LINKS to the span stored
 * as `traceparent` in event metadata, instead of pretending to be its child minutes later.
 */
export async function runInLinkedSpan<T>(
  name: string,
  storedTraceparents: string | readonly string[] | undefined,
  work: (span: Span) => Promise<T> | T,
  options: Omit<RunInSpanOptions, 'links'> = {},
): Promise<T> {
  const stored = typeof storedTraceparents === 'string' ? [storedTraceparents] : (storedTraceparents ?? []);
  const links = stored.flatMap((traceparent) => {
    const linked = spanContextFromTraceparent(traceparent);
    return linked ? [{ context: linked }] : [];
  });
  return runInSpan(name, { ...options, links }, work);
}

/**
 * Starts a new trace whatever context is active. For work that an event from the network starts
 * (a receipt, an inbound message): socket callbacks run in the async context in which the socket
 * was opened, so without this they would join the trace of the request that connected the session.
 */
export function runInRootSpan<T>(name: string, options: Omit<RunInSpanOptions, 'parent'>, work: (span: Span) => Promise<T> | T): Promise<T> {
  return runInSpan(name, { ...options, parent: ROOT_CONTEXT }, work);
}
