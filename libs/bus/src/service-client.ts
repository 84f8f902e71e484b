import type { Context } from '@opentelemetry/api';
import { context } from '@opentelemetry/api';
import { ApiError, BUS_HEADERS, ErrorCode } from '@switchboard/contracts';
import { validationError } from '@switchboard/contracts';
import type { ReplyOf, RequestOf, SubjectContract } from '@switchboard/contracts';
import { injectTraceHeaders, isRecordingSpans } from '@switchboard/telemetry';
import type { z } from 'zod';
import type { Bus, BusHeaders, BusMessage, BusReply, DirectAnswer } from './bus.js';
import { carriedFailure } from './envelope.js';
import { outgoingHeaders, runAsHandler } from './tracing.js';

/** Deadline of a call when the caller names none. */
export const DEFAULT_CALL_TIMEOUT_MS = 5_000;

export interface CallOptions {
  /** Deadline of the round trip; UPSTREAM_TIMEOUT after it. */
  readonly timeoutMs?: number;
  /** The request this call serves (the W3C trace id at the gateway): `correlation-id`. */
  readonly correlationId?: string;
  /** The event or command that caused this call: `causation-id`. */
  readonly causationId?: string;
  /** The account the call is for: `account-id`, on its log lines there. */
  readonly accountId?: string | null;
  /** The caller's trace, so the bus span is its child (else the active context's). */
  readonly traceContext?: Context;
}

/**
 * How a call that did not answer with data ended, for retry decisions:
 * - `refused`: the service answered with a named error; it did what that error says (usually nothing);
 * - `not_delivered`: nobody received the request, so nothing happened there;
 * - `unknown`: no answer in time, or a broken one: it may or may not have acted (retry with the same ids).
 */
export type CallOutcome = 'refused' | 'not_delivered' | 'unknown';

/** A failed call: the public error a client would see, and whether the request may have had an effect. */
export class ServiceCallError extends ApiError {
  /** The subject called, when known (which service did not answer). */
  readonly subject: string | undefined;

  constructor(
    readonly outcome: CallOutcome,
    code: ErrorCode,
    options: { message?: string | undefined; details?: ApiError['details']; subject?: string | undefined } = {},
  ) {
    super(code, options.message, options.details);
    this.subject = options.subject;
  }
}

/** A reply from another process that broke its subject's contract: a bug there (a 500 at the gateway, logged). */
export class ContractViolationError extends Error {
  override readonly name = 'ContractViolationError';
  constructor(subject: string, error: z.ZodError) {
    const issues = error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
    super(`reply of ${subject} breaks its contract: ${issues}`);
  }
}

/**
 * The one way a process calls another service: the standard headers set (`correlation-id`,
 * `causation-id`, `account-id`, `traceparent`), the deadline applied. Messages are parsed where
 * they cross a process boundary, once: `data` is typed by the subject's contract here (the
 * handler of another process parses it with `parseRequest`), and a reply from another process is
 * parsed by the subject's reply schema; within one process (the embedded bus) neither is parsed
 * again. A failure is a ServiceCallError with the public code (a service's named error keeps its
 * code, message and details; a timeout is UPSTREAM_TIMEOUT; no responder or no bus is
 * SERVICE_UNAVAILABLE) and its CallOutcome. A bug is thrown as it is, for the caller to log: a
 * reply that breaks its contract (ContractViolationError), an INTERNAL_ERROR of the other service
 * (its RemoteError; a request that broke the contract is one), anything else.
 */
export async function callService<S extends SubjectContract>(bus: Bus, subject: S, data: RequestOf<S>, options: CallOptions = {}): Promise<ReplyOf<S>> {
  // A read the answering service offers in this process is answered directly, unless spans are
  // recorded: a trace then shows the hop like any other.
  const direct = isRecordingSpans() ? undefined : bus.directAnswer?.(subject.subject);
  if (direct) return answerDirectly(direct, subject, data, options);
  const run = () => requestAndParse(bus, subject, data, options);
  return options.traceContext ? context.with(options.traceContext, run) : run();
}

/**
 * Offers `answer` for `subject` to callers in this process (`callService`), beside the bus
 * subscription that answers everyone else: the in-process bus only (elsewhere nothing is
 * offered). For reads that answer at once: a direct answer has no deadline, no span and no bus
 * metrics, and is not a bus request. Returns the offer's removal (call it on close).
 */
export function answerInProcess<S extends SubjectContract>(bus: Bus, subject: S, answer: (request: RequestOf<S>) => ReplyOf<S> | Promise<ReplyOf<S>>): () => void {
  return bus.answerDirectly?.(subject.subject, answer as DirectAnswer) ?? (() => undefined);
}

/**
 * The answer as the bus would have brought it: the handler runs with the call's headers as its
 * inbound ones, and its failure reaches the caller as it would over the bus (only what
 * `toRemoteErrorBody` lets out, then mapped by `toServiceCallError`).
 */
async function answerDirectly<S extends SubjectContract>(answer: DirectAnswer, subject: S, data: unknown, options: CallOptions): Promise<ReplyOf<S>> {
  try {
    // The headers the bus would deliver: those a handler calling here inherits included.
    return (await runAsHandler(outgoingHeaders(callHeaders(options)), () => answer(data))) as ReplyOf<S>;
  } catch (error) {
    const carried = carriedFailure(subject.subject, error);
    throw toServiceCallError(carried, subject.subject) ?? carried;
  }
}

/** The standard headers of a call (the trace's are added by the transport). */
function callHeaders(options: CallOptions): BusHeaders {
  const headers: BusHeaders = {};
  if (options.correlationId) headers[BUS_HEADERS.correlationId] = options.correlationId;
  if (options.causationId) headers[BUS_HEADERS.causationId] = options.causationId;
  if (options.accountId) headers[BUS_HEADERS.accountId] = options.accountId;
  return headers;
}

/**
 * A handler's request as its contract says: parsed (VALIDATION_ERROR with every problem) when it
 * came from another process; as it is when it came from this one (typed by the sender's contract).
 */
export function parseRequest<S extends SubjectContract>(subject: S, message: Pick<BusMessage, 'data' | 'local'>): RequestOf<S> {
  if (message.local) return message.data as RequestOf<S>;
  const parsed = subject.request.safeParse(message.data);
  if (!parsed.success) throw validationError(parsed.error);
  return parsed.data as RequestOf<S>;
}

async function requestAndParse<S extends SubjectContract>(bus: Bus, subject: S, data: unknown, options: CallOptions): Promise<ReplyOf<S>> {
  const headers = injectTraceHeaders(callHeaders(options));
  let reply: BusReply;
  try {
    reply = await bus.request(subject.subject, data, { timeoutMs: options.timeoutMs ?? DEFAULT_CALL_TIMEOUT_MS, headers });
  } catch (error) {
    throw toServiceCallError(error, subject.subject) ?? error;
  }
  if (reply.local) return reply.data as ReplyOf<S>;
  const parsed = subject.reply.safeParse(reply.data);
  if (!parsed.success) throw new ContractViolationError(subject.subject, parsed.error);
  return parsed.data as ReplyOf<S>;
}

/**
 * A bus failure as the caller sees it, or undefined for a bug. Matched by name as well as class,
 * so a second copy of this package in the tree cannot turn a timeout into a bug.
 */
export function toServiceCallError(error: unknown, subject?: string): ServiceCallError | undefined {
  const e = (typeof error === 'object' && error !== null ? error : {}) as { name?: unknown; code?: unknown; message?: unknown; details?: unknown };
  switch (e.name) {
    case 'NoResponderError':
    case 'BusUnavailableError':
      return new ServiceCallError('not_delivered', 'SERVICE_UNAVAILABLE', { subject });
    case 'DeadlineExceededError':
      return new ServiceCallError('unknown', 'UPSTREAM_TIMEOUT', { subject });
    case 'ConnectionLostError':
      return new ServiceCallError('unknown', 'SERVICE_UNAVAILABLE', { subject });
    case 'RemoteError': {
      const code = ErrorCode.safeParse(e.code);
      // A bug on the other side, or a code this build does not know: nothing a client can act on.
      if (!code.success || code.data === 'INTERNAL_ERROR') return undefined;
      const message = typeof e.message === 'string' && e.message !== '' ? e.message : undefined;
      const details = typeof e.details === 'object' && e.details !== null ? (e.details as ApiError['details']) : undefined;
      return new ServiceCallError('refused', code.data, { message, details, subject });
    }
    default:
      return undefined;
  }
}
