import { toServiceCallError } from '@switchboard/bus';
import { ApiError, HTTP_HEADERS, isApiError, payloadTooLarge } from '@switchboard/contracts';
import type { ErrorCode as ErrorCodeType } from '@switchboard/contracts';
import type { FastifyBaseLogger, FastifyReply } from 'fastify';
import { BODY_LIMIT_BYTES } from './body.js';

/** Seconds a client is asked to wait after a 503 (bus or service unreachable). */
export const RETRY_AFTER_UNAVAILABLE_SECONDS = 5;

/**
 * Fastify's own client failures, each as the documented code. Its messages are never shown: they
 * quote the path, which can carry a phone number or a token.
 */
const FASTIFY_ERRORS: Readonly<Record<string, () => ApiError>> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () => new ApiError('UNSUPPORTED_MEDIA_TYPE'),
  FST_ERR_CTP_BODY_TOO_LARGE: () => payloadTooLarge(BODY_LIMIT_BYTES),
  FST_ERR_CTP_EMPTY_JSON_BODY: () => new ApiError('INVALID_JSON'),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () => new ApiError('INVALID_JSON'),
  // Answered before routing (the `frameworkErrors` option), so no route tells which part is bad.
  FST_ERR_BAD_URL: () => invalidUrl('The path is not valid percent-encoding (a "%" must start an escape like %2F).'),
  FST_ERR_MAX_PARAM_LENGTH: () => invalidUrl('A path segment is too long.'),
};

const invalidUrl = (message: string) => new ApiError('VALIDATION_ERROR', undefined, [{ path: 'url', message }]);

const BY_STATUS: Readonly<Record<number, ErrorCodeType>> = {
  404: 'ROUTE_NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

interface Coded {
  name?: unknown;
  code?: unknown;
  statusCode?: unknown;
}

/**
 * What a client may see of any failure: an ApiError with a public code, or `null` for a bug
 * (rendered as INTERNAL_ERROR and logged): a bus failure as the service client maps it, a
 * fastify client error as its documented code.
 */
export function toPublicError(error: unknown): ApiError | null {
  if (isApiError(error)) return error;
  if (typeof error !== 'object' || error === null) return null;
  // A bus failure that did not come through callService (e.g. a stream's own read).
  const fromBus = toServiceCallError(error);
  if (fromBus) return fromBus;
  const e = error as Coded;
  if (e.name === 'RemoteError') return null;
  return fromFastify(e);
}

function fromFastify(e: Coded): ApiError | null {
  const byCode = typeof e.code === 'string' ? FASTIFY_ERRORS[e.code] : undefined;
  if (byCode) return byCode();
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 500) return null;
  const byStatus = BY_STATUS[status];
  if (byStatus) return new ApiError(byStatus);
  // Other client errors fastify raises (a malformed URL, a bad header): the request is invalid.
  // Its own message may quote internals, so the default sentence is used.
  return typeof e.code === 'string' && e.code.startsWith('FST_ERR_CTP') ? new ApiError('INVALID_JSON') : new ApiError('VALIDATION_ERROR');
}

/** Headers an error code asks for: `WWW-Authenticate` on 401, `Retry-After` where it helps. */
function errorHeaders(error: ApiError, now: Date): Record<string, string> {
  switch (error.code) {
    case 'UNAUTHORIZED':
      return { [HTTP_HEADERS.wwwAuthenticate]: 'Bearer realm="switchboard"' };
    case 'SERVICE_UNAVAILABLE':
      return { [HTTP_HEADERS.retryAfter]: String(RETRY_AFTER_UNAVAILABLE_SECONDS) };
    case 'DAILY_MESSAGE_LIMIT_REACHED':
      return retryAtReset(error, now);
    case 'CONTACT_CHECK_LIMIT_REACHED':
      return retryAfterSeconds(error);
    default:
      return {};
  }
}

/** `Retry-After` as the refusal said it (details.retryAfterSeconds). */
function retryAfterSeconds(error: ApiError): Record<string, string> {
  const seconds = (error.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof seconds === 'number' ? { [HTTP_HEADERS.retryAfter]: String(Math.max(1, Math.ceil(seconds))) } : {};
}

/** `Retry-After` = whole seconds until the daily counter resets (details.resetsAt). */
function retryAtReset(error: ApiError, now: Date): Record<string, string> {
  const resetsAt = (error.details as { resetsAt?: unknown } | undefined)?.resetsAt;
  const at = typeof resetsAt === 'string' ? Date.parse(resetsAt) : Number.NaN;
  if (Number.isNaN(at)) return {};
  return { [HTTP_HEADERS.retryAfter]: String(Math.max(0, Math.ceil((at - now.getTime()) / 1000))) };
}

/**
 * Renders any failure as the error envelope. Bugs become INTERNAL_ERROR, logged with the request
 * id (and the error, which never reaches the client).
 */
export function sendError(reply: FastifyReply, error: unknown, requestId: string, logger: FastifyBaseLogger): FastifyReply {
  const publicError = toPublicError(error);
  const shown = publicError ?? new ApiError('INTERNAL_ERROR');
  if (publicError === null) logger.error({ requestId, err: error }, 'request failed with an internal error');
  else if (shown.httpStatus >= 500) logger.warn({ requestId, code: shown.code }, 'request failed upstream');
  return reply
    .code(shown.httpStatus)
    .headers(errorHeaders(shown, new Date()))
    .type('application/json; charset=utf-8')
    .send(shown.toEnvelope(requestId));
}
