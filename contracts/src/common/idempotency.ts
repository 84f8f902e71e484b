import { createHash } from 'node:crypto';
import { z } from 'zod';
import { Sha256Hex } from '../messages/content.js';
import type { AccountId } from './ids.js';

// Idempotency-Key rules every service shares (api-decisions.md: the same key and body within 24 h
// returns the first response). Each service keeps its own claims in its own store, one stream per
// account and key; these are the pure parts that must agree between the gateway and the services.

/** Stream category of idempotency keys (in each service's own store). */
export const IDEMPOTENCY_CATEGORY = 'idempotency';

/** How long a key stays bound to its first request (api-decisions.md: 24 h). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Lower-case hex SHA-256 of the UTF-8 of `text`. */
export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * `idempotency-<accountId>-<keyHash>`: the key itself is client text (any printable ASCII), so the
 * stream is named after its SHA-256 (lower-case hex), which is safe in stream names and logs.
 */
export const idempotencyStream = (accountId: AccountId, keyHash: string): string =>
  `${IDEMPOTENCY_CATEGORY}-${accountId}-${keyHash}`;

/** What names a key in streams and on the bus: the raw key never leaves the gateway. */
export const idempotencyKeyHash = (key: string): string => sha256Hex(key);

/**
 * An Idempotency-Key as the gateway hands it to a service: `keyHash` names the key (the raw key
 * never crosses the bus), `requestHash` is `idempotencyRequestHash(kind, body)` of the request.
 */
export const IdempotencyRef = z.object({ keyHash: Sha256Hex, requestHash: Sha256Hex });
export type IdempotencyRef = z.infer<typeof IdempotencyRef>;

/**
 * JSON with object keys sorted at every level: the same request body gives the same text however
 * the client ordered its fields. Input is a parsed JSON value (no undefined inside arrays).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * What a request hash covers: the endpoint kind and the body, so the same body sent to another
 * endpoint under the same key is another request.
 */
export function requestHashInput(kind: string, body: unknown): string {
  return canonicalJson({ kind, body });
}

/** The request hash compared on a repeated key: SHA-256 of `requestHashInput(kind, body)`. */
export const idempotencyRequestHash = (kind: string, body: unknown): string => sha256Hex(requestHashInput(kind, body));
