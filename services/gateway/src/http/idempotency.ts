import { ApiError, HTTP_HEADERS, IdempotencyKey, idempotencyKeyHash, idempotencyRequestHash } from '@switchboard/contracts';
import type { IdempotencyRef } from '@switchboard/contracts';
import type { FastifyRequest } from 'fastify';

type WithHeaders = Pick<FastifyRequest, 'headers'>;

const PATH = 'headers.idempotency-key';

/**
 * The Idempotency-Key header of a POST as the services see it, hashes only (the raw key stays in
 * the gateway): validated like a body field (400 VALIDATION_ERROR at `headers.idempotency-key`
 * when malformed or repeated), with the hash of the request it stands for, `{kind, body}`, so the
 * same body under the same key on another endpoint is another request. `null` without the header.
 */
export function idempotencyOf(request: WithHeaders, body: unknown, kind: string): IdempotencyRef | null {
  const raw = request.headers[HTTP_HEADERS.idempotencyKey];
  if (raw === undefined) return null;
  const parsed = IdempotencyKey.safeParse(raw);
  if (!parsed.success) {
    const message = Array.isArray(raw) ? 'send one Idempotency-Key header' : (parsed.error.issues[0]?.message ?? 'invalid');
    throw new ApiError('VALIDATION_ERROR', undefined, [{ path: PATH, message: `Idempotency-Key ${message}` }]);
  }
  return { keyHash: idempotencyKeyHash(parsed.data), requestHash: idempotencyRequestHash(kind, body) };
}

/**
 * For POSTs that cannot replay their first response (it carries a one-time secret that is never
 * stored): a client sending a key gets 400 at once rather than believing a retry is safe.
 */
export function refuseIdempotencyKey(request: WithHeaders, why: string): void {
  if (request.headers[HTTP_HEADERS.idempotencyKey] === undefined) return;
  throw new ApiError('VALIDATION_ERROR', undefined, [{ path: PATH, message: `Idempotency-Key is not supported here: ${why}` }]);
}
