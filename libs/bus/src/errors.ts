/** Base of every error the bus itself raises; `code` is stable and safe to show. */
export abstract class BusError extends Error {
  abstract readonly code: string;
}

/** Nobody subscribes to the subject: reported at once instead of waiting for the deadline. */
export class NoResponderError extends BusError {
  readonly code = 'NO_RESPONDER';
  constructor(readonly subject: string) {
    super(`no responder for ${subject}`);
    this.name = 'NoResponderError';
  }
}

/** No reply arrived before the request's deadline. */
export class DeadlineExceededError extends BusError {
  readonly code = 'DEADLINE_EXCEEDED';
  constructor(readonly subject: string, readonly timeoutMs: number) {
    super(`no reply from ${subject} within ${timeoutMs} ms`);
    this.name = 'DeadlineExceededError';
  }
}

/** The transport cannot carry messages: unreachable at connect, disconnected, or closed. */
export class BusUnavailableError extends BusError {
  readonly code = 'BUS_UNAVAILABLE';
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'BusUnavailableError';
  }
}

/**
 * The connection dropped while a request was out: no reply can come back over it, so the caller
 * hears at once instead of at its deadline. The other side may or may not have acted.
 */
export class ConnectionLostError extends BusError {
  readonly code = 'CONNECTION_LOST';
  constructor(readonly subject: string) {
    super(`connection lost while waiting for ${subject}`);
    this.name = 'ConnectionLostError';
  }
}

/** What a failed handler sends back. */
export interface RemoteErrorBody {
  code: string;
  message: string;
  details?: unknown;
}

/** A handler on the other side failed; `code` is its error code or `INTERNAL_ERROR`. */
export class RemoteError extends BusError {
  readonly code: string;
  readonly details: unknown;
  constructor(readonly subject: string, body: RemoteErrorBody) {
    super(body.message);
    this.name = 'RemoteError';
    this.code = body.code;
    this.details = body.details;
  }
}

export const INTERNAL_ERROR = 'INTERNAL_ERROR';

/**
 * What a caller may see of a handler's failure. An error with a string `code` is a named
 * (domain) error, so its code, message and `details` travel. Anything else is a bug whose
 * message or stack could leak internals or user data: it becomes a bare `INTERNAL_ERROR`.
 */
export function toRemoteErrorBody(error: unknown): RemoteErrorBody {
  if (typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string') {
    const named = error as { code: string; message?: unknown; details?: unknown };
    const message = typeof named.message === 'string' ? named.message : named.code;
    return named.details === undefined ? { code: named.code, message } : { code: named.code, message, details: named.details };
  }
  return { code: INTERNAL_ERROR, message: 'internal error' };
}
