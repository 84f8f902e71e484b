import { ApiError, IDEMPOTENCY_WINDOW_MS } from '@switchboard/contracts';
import type { IdempotencyRef, SessionKeyEvent } from '@switchboard/contracts';

/** An Idempotency-Key of session creates: free, or bound to the first request and its session. */
export type KeyState = { kind: 'Free' } | { kind: 'Held'; sessionId: string; requestHash: string; claimedAt: string };

export const freeKey: KeyState = { kind: 'Free' };

/** A create asking for a key: its hashes and the session id it would create. */
export interface ClaimRequest extends IdempotencyRef {
  accountId: string;
  sessionId: string;
}

/** `claim`: append `event`, this request creates the session; `replay`: answer for the holder's. */
export type ClaimDecision =
  | { kind: 'claim'; event: SessionKeyEvent }
  | { kind: 'replay'; sessionId: string; claimedAt: string };

/** Same key, another body (api-decisions.md: 409). */
export class IdempotencyKeyReused extends ApiError {
  constructor() {
    super('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used to create a session with a different request body.');
  }
}

export function evolveKey(state: KeyState, event: SessionKeyEvent): KeyState {
  if (event.type === 'SessionKeyClaimed') {
    const { sessionId, requestHash, claimedAt } = event.data;
    return { kind: 'Held', sessionId, requestHash, claimedAt };
  }
  // A release frees the key only for the claim it names (a late release of an older one is stale).
  return state.kind === 'Held' && state.sessionId === event.data.sessionId ? freeKey : state;
}

/**
 * The first claim within 24 h holds the key: the same request hash replays its session, another
 * one is refused. A free key, or a claim older than the window, is claimed by this request.
 */
export function decideClaim(state: KeyState, request: ClaimRequest, now: Date): ClaimDecision {
  if (state.kind === 'Held' && now.getTime() - Date.parse(state.claimedAt) < IDEMPOTENCY_WINDOW_MS) {
    if (state.requestHash !== request.requestHash) throw new IdempotencyKeyReused();
    return { kind: 'replay', sessionId: state.sessionId, claimedAt: state.claimedAt };
  }
  const { accountId, keyHash, requestHash, sessionId } = request;
  return { kind: 'claim', event: { type: 'SessionKeyClaimed', version: 1, data: { accountId, keyHash, requestHash, sessionId, claimedAt: now.toISOString() } } };
}

/** Frees the key after its create failed; nothing when another claim holds it by now. */
export function decideRelease(state: KeyState, sessionId: string, code: string, now: Date): SessionKeyEvent[] {
  if (state.kind !== 'Held' || state.sessionId !== sessionId) return [];
  return [{ type: 'SessionKeyReleased', version: 1, data: { sessionId, code, releasedAt: now.toISOString() } }];
}
