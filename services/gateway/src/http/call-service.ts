import type { Context } from '@opentelemetry/api';
import { context } from '@opentelemetry/api';
import { BUS_HEADERS } from '@switchboard/contracts';
import type { ReplyOf, RequestInput, SubjectContract } from '@switchboard/contracts';
import type { Bus, BusHeaders } from '@switchboard/bus';
import { injectTraceHeaders } from '@switchboard/telemetry';
import type { z } from 'zod';
import { toPublicError } from './errors.js';

/** Default deadline of a bus call made for an HTTP request (queries, commands). */
export const DEFAULT_CALL_TIMEOUT_MS = 5_000;

export interface CallContext {
  /** The request id (W3C trace id): travels as `correlation-id`. */
  readonly requestId: string;
  /** The caller's account, sent as the `account-id` header when there is one. */
  readonly accountId?: string | null;
  /** Deadline of the round trip; 504 UPSTREAM_TIMEOUT after it. */
  readonly timeoutMs?: number;
  /** The request's trace context, so the bus span is a child of the HTTP span. */
  readonly traceContext?: Context;
}

/** A message that broke its subject's contract: a bug on one side, rendered as a 500 and logged. */
export class ContractViolationError extends Error {
  override readonly name = 'ContractViolationError';
  constructor(subject: string, side: 'request' | 'reply', error: z.ZodError) {
    const issues = error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    super(`${side} of ${subject} breaks its contract: ${issues}`);
  }
}

/**
 * One request/reply over the bus for an HTTP call: checks `data` against the subject's request
 * schema, adds `traceparent`, `correlation-id` and `account-id`, applies the deadline, checks the
 * reply against the subject's reply schema and returns its parsed data. Failures are thrown as
 * ApiErrors with the public code (a service's named error keeps its code; a timeout is
 * UPSTREAM_TIMEOUT; no responder or no bus is SERVICE_UNAVAILABLE); anything else is rethrown as
 * is and becomes a logged INTERNAL_ERROR.
 */
export async function callService<S extends SubjectContract>(
  bus: Bus,
  subject: S,
  data: RequestInput<S>,
  ctx: CallContext,
): Promise<ReplyOf<S>> {
  const checked = subject.request.safeParse(data);
  if (!checked.success) throw new ContractViolationError(subject.subject, 'request', checked.error);
  const run = () => requestAndParse(bus, subject, data, ctx);
  return ctx.traceContext ? context.with(ctx.traceContext, run) : run();
}

async function requestAndParse<S extends SubjectContract>(bus: Bus, subject: S, data: unknown, ctx: CallContext): Promise<ReplyOf<S>> {
  const headers: BusHeaders = { [BUS_HEADERS.correlationId]: ctx.requestId };
  if (ctx.accountId) headers[BUS_HEADERS.accountId] = ctx.accountId;
  injectTraceHeaders(headers);
  let reply: unknown;
  try {
    reply = (await bus.request(subject.subject, data, { timeoutMs: ctx.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, headers })).data;
  } catch (error) {
    throw toPublicError(error) ?? error;
  }
  const parsed = subject.reply.safeParse(reply);
  if (!parsed.success) throw new ContractViolationError(subject.subject, 'reply', parsed.error);
  return parsed.data as ReplyOf<S>;
}
