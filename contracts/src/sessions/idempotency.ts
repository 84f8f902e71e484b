import { z } from 'zod';
import { AccountId, SessionId } from '../common/ids.js';
import { IsoTimestamp } from '../common/time.js';
import { defineEvent } from '../events/define.js';
import { createEventParser } from '../events/parser.js';
import { Sha256Hex } from '../messages/content.js';

// Idempotency-Key claims of session creates, kept in the sessions service's own store under
// `idempotency-<accountId>-<keyHash>` (common/idempotency.ts). Internal bookkeeping: not published.

/** The `kind` a create's request hash covers (`idempotencyRequestHash(CREATE_SESSION_KIND, body)`). */
export const CREATE_SESSION_KIND = 'createSession';

/**
 * The key now stands for this create request and this session id, minted before the plan slot is
 * reserved. The first claim wins; a later one with the same hash answers for this session.
 */
export const SessionKeyClaimed = defineEvent('SessionKeyClaimed', 1, {
  accountId: AccountId,
  keyHash: Sha256Hex,
  requestHash: Sha256Hex,
  sessionId: SessionId,
  claimedAt: IsoTimestamp,
});
export type SessionKeyClaimed = z.infer<typeof SessionKeyClaimed>;

/**
 * The claimed create failed (no slot, no pairing code), so the client got an error, not a
 * session: the key is free again and a retry with it runs as a new request.
 */
export const SessionKeyReleased = defineEvent('SessionKeyReleased', 1, {
  sessionId: SessionId,
  code: z.string().min(1).max(64),
  releasedAt: IsoTimestamp,
});
export type SessionKeyReleased = z.infer<typeof SessionKeyReleased>;

export const SESSION_KEY_EVENTS = [SessionKeyClaimed, SessionKeyReleased] as const;
export const SessionKeyEvent = z.discriminatedUnion('type', [...SESSION_KEY_EVENTS]);
export type SessionKeyEvent = z.infer<typeof SessionKeyEvent>;
export const sessionKeyEventParser = createEventParser(SESSION_KEY_EVENTS);
