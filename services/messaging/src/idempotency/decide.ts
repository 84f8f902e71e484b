import { ApiError, IDEMPOTENCY_WINDOW_MS } from '@switchboard/contracts';
import type { IdempotencyEvent, IdempotencyRef } from '@switchboard/contracts';
import type { Message } from '../message/state.js';

/** An Idempotency-Key of sends: free, or bound to the first request and the message it minted. */
export type KeyState = { kind: 'Free' } | { kind: 'Held'; messageId: string; requestHash: string; claimedAt: string };

export const freeKey: KeyState = { kind: 'Free' };

/** A send asking for a key: its hashes and the message id it would send. */
export interface ClaimRequest extends IdempotencyRef {
  accountId: string;
  messageId: string;
}

/** `claim`: append `event`, this request sends `messageId`; `replay`: answer for the holder's message. */
export type ClaimDecision = { kind: 'claim'; event: IdempotencyEvent; messageId: string } | { kind: 'replay'; messageId: string };

/** Same key, another body (api-decisions.md: 409). */
export class IdempotencyKeyReused extends ApiError {
  constructor() {
    super('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different request body.');
  }
}

export function evolveKey(state: KeyState, event: IdempotencyEvent): KeyState {
  if (event.type === 'IdempotencyKeyClaimed') {
    const { messageId, requestHash, claimedAt } = event.data;
    return { kind: 'Held', messageId, requestHash, claimedAt };
  }
  // A release frees the key only for the claim it names (a late release of an older one is stale).
  return state.kind === 'Held' && state.messageId === event.data.messageId ? freeKey : state;
}

/**
 * Whether the holder's message lets the key go (api-decisions.md: a key is held only by a request
 * that succeeded or whose message may have reached the network). A message that failed before the
 * network (no session, sessions unavailable, recipient unknown) told its client to fix or retry:
 * its key serves the next request. Not yet accepted: its request is still running, or a crash
 * stopped it and the retry finishes it under the same message id.
 */
export function holderLetsGo(holder: Message): boolean {
  return holder.status === 'failed' && holder.beforeNetwork;
}

/**
 * The first claim within 24 h holds the key: the same request hash replays its message, another
 * one is refused. A free key, an expired claim, or one whose message failed before the network is
 * claimed by this request. `holderFree`: `holderLetsGo` of the holder's message.
 */
export function decideClaim(state: KeyState, request: ClaimRequest, holderFree: boolean, now: Date): ClaimDecision {
  if (state.kind === 'Held' && !holderFree && now.getTime() - Date.parse(state.claimedAt) < IDEMPOTENCY_WINDOW_MS) {
    if (state.requestHash !== request.requestHash) throw new IdempotencyKeyReused();
    return { kind: 'replay', messageId: state.messageId };
  }
  const { accountId, keyHash, requestHash, messageId } = request;
  const event: IdempotencyEvent = { type: 'IdempotencyKeyClaimed', version: 1, data: { accountId, keyHash, requestHash, messageId, claimedAt: now.toISOString() } };
  return { kind: 'claim', event, messageId };
}

/** Frees the key after its request failed before its message was accepted; stale releases do nothing. */
export function decideRelease(state: KeyState, messageId: string, code: string, now: Date): IdempotencyEvent[] {
  if (state.kind !== 'Held' || state.messageId !== messageId) return [];
  return [{ type: 'IdempotencyKeyReleased', version: 1, data: { messageId, code, releasedAt: now.toISOString() } }];
}
