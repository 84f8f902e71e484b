import { z } from 'zod';
import { ERROR_DEFAULT_MESSAGE, ERROR_HTTP_STATUS, ErrorCode } from './codes.js';
import { ErrorDetails } from './details.js';
import type { ErrorEnvelope } from './envelope.js';

/** The error part of a bus reply: what crosses a process boundary (no stack, no cause). */
export const BusError = z.object({
  code: ErrorCode,
  message: z.string().min(1),
  details: ErrorDetails.optional(),
});
export type BusError = z.infer<typeof BusError>;

/**
 * ApiError: a failure with a public error code. Thrown by handlers, carried over the bus as a
 * `BusError`, rendered by the gateway as the error envelope. Its message and details are shown
 * to clients, so they must never hold secrets, SQL or host names.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message?: string, details?: ErrorDetails) {
    super(message ?? ERROR_DEFAULT_MESSAGE[code]);
    this.code = code;
    this.details = details;
  }

  get httpStatus(): number {
    return ERROR_HTTP_STATUS[this.code];
  }

  toBusError(): BusError {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  toEnvelope(requestId: string): ErrorEnvelope {
    return { success: false, error: { ...this.toBusError(), requestId } };
  }

  static fromBusError(error: BusError): ApiError {
    return new ApiError(error.code, error.message, error.details);
  }
}

/** Type guard that also works across module copies (checks the shape, not the prototype). */
export function isApiError(value: unknown): value is ApiError {
  if (value instanceof ApiError) return true;
  if (!(value instanceof Error) || value.name !== 'ApiError') return false;
  return ErrorCode.safeParse((value as { code?: unknown }).code).success;
}

/** Anything thrown becomes an ApiError; unknown failures become INTERNAL_ERROR with no detail. */
export function toApiError(value: unknown): ApiError {
  return isApiError(value) ? value : new ApiError('INTERNAL_ERROR');
}
