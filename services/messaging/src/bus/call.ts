import { ApiError, ErrorCode } from '@switchboard/contracts';
import type { ReplyOf, RequestInput, SubjectContract } from '@switchboard/contracts';
import type { Bus, BusHeaders } from '@switchboard/bus';

/** How a bus call to another service ended when it did not answer with data. */
export type CallFailureKind =
  /** The other service answered with a named error (`error` holds it). */
  | 'refused'
  /** Nobody received the request: nothing happened there. */
  | 'not_delivered'
  /** No answer in time: the other side may or may not have acted. */
  | 'unknown';

/** A failed call, classified for retry decisions, with the public error a client would see. */
export class CallFailure extends Error {
  override readonly name = 'CallFailure';
  constructor(
    readonly kind: CallFailureKind,
    readonly error: ApiError,
  ) {
    super(error.message);
  }
}

/**
 * One request to another service: the reply checked against its contract. Failures become a
 * CallFailure that says whether the request may have had an effect (retry with the same ids) or
 * certainly did not.
 */
export async function callSubject<S extends SubjectContract>(
  bus: Bus,
  subject: S,
  data: RequestInput<S>,
  options: { timeoutMs: number; headers?: BusHeaders },
): Promise<ReplyOf<S>> {
  let reply: unknown;
  try {
    reply = (await bus.request(subject.subject, data, options)).data;
  } catch (error) {
    throw classify(error);
  }
  const parsed = subject.reply.safeParse(reply);
  if (!parsed.success) throw new CallFailure('unknown', new ApiError('INTERNAL_ERROR'));
  return parsed.data as ReplyOf<S>;
}

function classify(error: unknown): CallFailure {
  const e = error as { name?: unknown; code?: unknown; message?: unknown; details?: unknown };
  switch (e.name) {
    case 'NoResponderError':
    case 'BusUnavailableError':
      return new CallFailure('not_delivered', new ApiError('SERVICE_UNAVAILABLE'));
    case 'DeadlineExceededError':
      return new CallFailure('unknown', new ApiError('UPSTREAM_TIMEOUT'));
    case 'ConnectionLostError':
      return new CallFailure('unknown', new ApiError('SERVICE_UNAVAILABLE'));
    case 'RemoteError': {
      const code = ErrorCode.safeParse(e.code);
      if (!code.success || code.data === 'INTERNAL_ERROR') return new CallFailure('unknown', new ApiError('INTERNAL_ERROR'));
      const details = typeof e.details === 'object' && e.details !== null ? (e.details as ApiError['details']) : undefined;
      return new CallFailure('refused', new ApiError(code.data, typeof e.message === 'string' && e.message ? e.message : undefined, details));
    }
    default:
      return new CallFailure('unknown', new ApiError('INTERNAL_ERROR'));
  }
}
