import { ROOT_CONTEXT, context, propagation, trace } from '@opentelemetry/api';
import type { Context, SpanContext } from '@opentelemetry/api';

/** A string map that travels with a message: bus headers, HTTP headers, event metadata. */
export type TraceCarrier = Record<string, string>;

/** Writes `traceparent` (and `tracestate`/`baggage` when present) of `ctx` into `carrier`. */
export function injectTraceHeaders<C extends TraceCarrier>(carrier: C, ctx: Context = context.active()): C {
  propagation.inject(ctx, carrier);
  return carrier;
}

/**
 * The remote parent described by `carrier`, on top of the root context: what arrived is the
 * only parent, whatever happens to be active in the receiving process.
 */
export function extractTraceContext(carrier: Readonly<Record<string, string | undefined>>): Context {
  return propagation.extract(ROOT_CONTEXT, carrier, {
    get: (c, key) => c[key] ?? c[key.toLowerCase()],
    keys: (c) => Object.keys(c),
  });
}

/** The active span as a `traceparent` value, for event metadata; undefined when none is active. */
export function currentTraceparent(): string | undefined {
  return injectTraceHeaders({} as TraceCarrier)['traceparent'];
}

/** The context a stored `traceparent` describes (root context when absent or malformed). */
export function contextFromTraceparent(traceparent: string | undefined): Context {
  return traceparent ? extractTraceContext({ traceparent }) : ROOT_CONTEXT;
}

/** The span context inside a stored `traceparent`, for span links; undefined when unusable. */
export function spanContextFromTraceparent(traceparent: string | undefined): SpanContext | undefined {
  return trace.getSpanContext(contextFromTraceparent(traceparent));
}
