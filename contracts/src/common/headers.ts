import { z } from 'zod';

/**
 * Idempotency-Key header on POSTs: the same key and body within 24 h replays the first response.
 * Printable ASCII, at most 255 characters (Stripe's limit), so it is safe to store and log.
 */
export const IdempotencyKey = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/, 'must be 1–255 printable ASCII characters without spaces')
  .meta({ example: '5f1c7a0e-2b7d-4c59-9a57-3f0b7f0e4a21' });
export type IdempotencyKey = z.infer<typeof IdempotencyKey>;

/** HTTP header names the gateway reads and writes. */
export const HTTP_HEADERS = {
  requestId: 'x-request-id',
  idempotencyKey: 'idempotency-key',
  /** `true` on an answer replayed for a repeated Idempotency-Key (nothing was done again). */
  idempotentReplayed: 'idempotent-replayed',
  retryAfter: 'retry-after',
  rateLimitLimit: 'ratelimit-limit',
  rateLimitRemaining: 'ratelimit-remaining',
  rateLimitReset: 'ratelimit-reset',
  wwwAuthenticate: 'www-authenticate',
} as const;

/** Bus message header names (the same names travel in event metadata). */
export const BUS_HEADERS = {
  traceparent: 'traceparent',
  correlationId: 'correlation-id',
  causationId: 'causation-id',
  accountId: 'account-id',
} as const;

/** W3C trace context `traceparent`: version-traceid-parentid-flags, lower-case hex. */
export const Traceparent = z
  .string()
  .regex(/^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/, 'must be a W3C traceparent')
  .meta({ example: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
export type Traceparent = z.infer<typeof Traceparent>;

/**
 * The token of an `Authorization: Bearer <token>` header, or `null` when the header is missing,
 * uses another scheme, or is malformed. The scheme is case-insensitive (RFC 7235).
 */
export function parseBearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^bearer +([\x21-\x7e]+) *$/i.exec(header);
  return match?.[1] ?? null;
}
