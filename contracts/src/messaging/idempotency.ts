import { z } from 'zod';
import { AccountId, MessageId } from '../common/ids.js';
import { IsoTimestamp } from '../common/time.js';
import { defineEvent } from '../events/define.js';
import { createEventParser } from '../events/parser.js';
import { Sha256Hex } from '../messages/content.js';

// Idempotency-Key bookkeeping of the messaging service: one stream per account and key, so every
// replica agrees on who used a key first (the first append with expected revision `no_stream` wins).
// The rules every service shares (key and request hashes, the stream name, the 24 h window) live
// in common/idempotency.ts.

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
