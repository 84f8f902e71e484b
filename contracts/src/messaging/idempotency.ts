import { z } from 'zod';
import { AccountId, MessageId } from '../common/ids.js';
import { IsoTimestamp } from '../common/time.js';
import { defineEvent } from '../events/define.js';
import { createEventParser } from '../events/parser.js';
import { Sha256Hex } from '../messages/content.js';
import type { MessageType } from '../messages/status.js';

// Idempotency-Key bookkeeping of the messaging service: one stream per account and key, so every
// replica agrees on who used a key first (the first append with expected revision `no_stream` wins).

/** Stream category of idempotency keys. */
export const IDEMPOTENCY_CATEGORY = 'idempotency';

/** How long a key stays bound to its first request (api-decisions.md: 24 h). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * `idempotency-<accountId>-<keyHash>`: the key itself is client text (any printable ASCII), so the
 * stream is named after its SHA-256 (lower-case hex), which is safe in stream names and logs.
 */
export const idempotencyStream = (accountId: AccountId, keyHash: Sha256Hex): string =>
  `${IDEMPOTENCY_CATEGORY}-${accountId}-${keyHash}`;

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
 * What the request hash covers: the endpoint kind and the body. `requestHash` on a send command is
 * the lower-case hex SHA-256 of the UTF-8 of this text.
 */
export function idempotencyHashInput(kind: MessageType, body: unknown): string {
  return canonicalJson({ kind, body });
}

/**
 * The key now stands for this request and this message. Only the first claim of a key wins; a
 * later request with the same key replays this message's outcome, or gets 409 when its hash differs.
 */
export const IdempotencyKeyClaimed = defineEvent('IdempotencyKeyClaimed', 1, {
  accountId: AccountId,
  keyHash: Sha256Hex,
  requestHash: Sha256Hex,
  messageId: MessageId,
  claimedAt: IsoTimestamp,
});
export type IdempotencyKeyClaimed = z.infer<typeof IdempotencyKeyClaimed>;

/**
 * The claimed request failed before its message was accepted (nothing was sent, no unit kept), so
 * the key is free again: a retry with it runs as a new request instead of replaying the refusal.
 */
export const IdempotencyKeyReleased = defineEvent('IdempotencyKeyReleased', 1, {
  messageId: MessageId,
  code: z.string().min(1).max(64),
  releasedAt: IsoTimestamp,
});
export type IdempotencyKeyReleased = z.infer<typeof IdempotencyKeyReleased>;

export const IDEMPOTENCY_EVENTS = [IdempotencyKeyClaimed, IdempotencyKeyReleased] as const;
export const IdempotencyEvent = z.discriminatedUnion('type', [...IDEMPOTENCY_EVENTS]);
export type IdempotencyEvent = z.infer<typeof IdempotencyEvent>;
export const idempotencyEventParser = createEventParser(IDEMPOTENCY_EVENTS);
