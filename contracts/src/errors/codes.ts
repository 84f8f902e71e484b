import { z } from 'zod';

/** Error code: the stable, machine-readable reason in every error envelope (api-decisions.md). */
export const ErrorCode = z.enum([
  'INVALID_JSON',
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'SESSION_NOT_FOUND',
  'MESSAGE_NOT_FOUND',
  'MEDIA_NOT_FOUND',
  'ROUTE_NOT_FOUND',
  // Not in the table, but admin endpoints need a not-found for accounts and keys that is
  // distinguishable from a missing route.
  'ACCOUNT_NOT_FOUND',
  'KEY_NOT_FOUND',
  // Webhooks (issue 11).
  'WEBHOOK_NOT_FOUND',
  'WEBHOOK_URL_FORBIDDEN',
  'WEBHOOK_LIMIT_REACHED',
  // Not in the table either: what the HTTP server refuses before any route runs (a client too
  // slow to send its request, a head over node's header limit).
  'REQUEST_TIMEOUT',
  'SESSION_NOT_CONNECTED',
  'SESSION_NOT_PENDING',
  'IDEMPOTENCY_KEY_REUSED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'MEDIA_UNREACHABLE',
  'MEDIA_TOO_LARGE',
  'MEDIA_TYPE_MISMATCH',
  'MEDIA_URL_FORBIDDEN',
  'RECIPIENT_NOT_ON_CHAT_NETWORK',
  'SESSION_LIMIT_REACHED',
  'DAILY_MESSAGE_LIMIT_REACHED',
  'CONTACT_CHECK_LIMIT_REACHED',
  // Not in the table: a message whose content was erased before it reached the network (issue 16).
  'CONTENT_ERASED',
  'HEADERS_TOO_LARGE',
  'INTERNAL_ERROR',
  'CHAT_NETWORK_ERROR',
  'SERVICE_UNAVAILABLE',
  'UPSTREAM_TIMEOUT',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

/** The HTTP status each code answers with. */
export const ERROR_HTTP_STATUS = {
  INVALID_JSON: 400,
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  SESSION_NOT_FOUND: 404,
  MESSAGE_NOT_FOUND: 404,
  MEDIA_NOT_FOUND: 404,
  ROUTE_NOT_FOUND: 404,
  ACCOUNT_NOT_FOUND: 404,
  KEY_NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  WEBHOOK_URL_FORBIDDEN: 400,
  WEBHOOK_LIMIT_REACHED: 409,
  REQUEST_TIMEOUT: 408,
  SESSION_NOT_CONNECTED: 409,
  SESSION_NOT_PENDING: 409,
  IDEMPOTENCY_KEY_REUSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  MEDIA_UNREACHABLE: 422,
  MEDIA_TOO_LARGE: 422,
  MEDIA_TYPE_MISMATCH: 422,
  MEDIA_URL_FORBIDDEN: 422,
  RECIPIENT_NOT_ON_CHAT_NETWORK: 422,
  SESSION_LIMIT_REACHED: 429,
  DAILY_MESSAGE_LIMIT_REACHED: 429,
  CONTACT_CHECK_LIMIT_REACHED: 429,
  CONTENT_ERASED: 410,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  CHAT_NETWORK_ERROR: 502,
  SERVICE_UNAVAILABLE: 503,
  UPSTREAM_TIMEOUT: 504,
} as const satisfies Record<ErrorCode, number>;

/** Default human sentences, used when the thrower has nothing more specific to say. */
export const ERROR_DEFAULT_MESSAGE: Readonly<Record<ErrorCode, string>> = {
  INVALID_JSON: 'The request body is not valid JSON.',
  VALIDATION_ERROR: 'The request is invalid; see details for every problem.',
  UNAUTHORIZED: 'A valid API key is required: send "Authorization: Bearer <API_KEY>".',
  FORBIDDEN: 'This API key is not allowed to call this endpoint.',
  SESSION_NOT_FOUND: 'No session with this id exists.',
  MESSAGE_NOT_FOUND: 'No message with this id exists.',
  MEDIA_NOT_FOUND: 'This message has no media, or its bytes are no longer stored.',
  ROUTE_NOT_FOUND: 'No endpoint matches this method and path.',
  ACCOUNT_NOT_FOUND: 'No account with this id exists.',
  KEY_NOT_FOUND: 'No API key with this id exists.',
  WEBHOOK_NOT_FOUND: 'No webhook with this id exists.',
  WEBHOOK_URL_FORBIDDEN: 'The webhook URL points at a private, loopback, link-local or metadata address, or does not resolve.',
  WEBHOOK_LIMIT_REACHED: 'The account already has the maximum of 10 webhooks.',
  REQUEST_TIMEOUT: 'The request did not arrive in time; the connection is closed.',
  SESSION_NOT_CONNECTED: 'The session is not connected; only a connected session can send.',
  SESSION_NOT_PENDING: 'The session is not waiting for a QR code scan.',
  IDEMPOTENCY_KEY_REUSED: 'This Idempotency-Key was already used with a different request.',
  PAYLOAD_TOO_LARGE: 'The request body is too large.',
  UNSUPPORTED_MEDIA_TYPE: 'The request body must be sent as application/json.',
  MEDIA_UNREACHABLE: 'The media could not be fetched.',
  MEDIA_TOO_LARGE: 'The media exceeds the size limit for its type.',
  MEDIA_TYPE_MISMATCH: 'The media content does not match mediaType.',
  MEDIA_URL_FORBIDDEN: 'The media URL points at a private, loopback or link-local address.',
  RECIPIENT_NOT_ON_CHAT_NETWORK: 'The recipient has no account on the chat network.',
  SESSION_LIMIT_REACHED: 'The plan allows no more concurrent sessions.',
  DAILY_MESSAGE_LIMIT_REACHED: 'The plan allows no more messages today.',
  CONTACT_CHECK_LIMIT_REACHED: 'This session has looked up as many numbers as it may for now.',
  CONTENT_ERASED: 'The account\'s message contents were erased before this message reached the chat network; it was not sent.',
  HEADERS_TOO_LARGE: 'The request line and headers together are too large.',
  INTERNAL_ERROR: 'An internal error occurred; quote the request id when reporting it.',
  CHAT_NETWORK_ERROR: 'The chat network refused or dropped the message.',
  SERVICE_UNAVAILABLE: 'The service is temporarily unavailable; retry later.',
  UPSTREAM_TIMEOUT: 'A service did not answer in time; retry later.',
};

export type HttpStatusOf<C extends ErrorCode> = (typeof ERROR_HTTP_STATUS)[C];

/** HTTP status for a code. */
export function httpStatusOf(code: ErrorCode): number {
  return ERROR_HTTP_STATUS[code];
}
