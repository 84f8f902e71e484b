import { idempotencyEventParser } from '@switchboard/contracts';
import type { IdempotencyEvent } from '@switchboard/contracts';
import type { KeyEvents } from '@switchboard/service-kit';
import type { Message } from '../message/state.js';

/** Sends' Idempotency-Key events, for the shared mechanism (service-kit IdempotencyKeys). */
export const MESSAGE_KEY_EVENTS: KeyEvents<IdempotencyEvent> = {
  parse: (raw) => idempotencyEventParser.parse(raw),
  read: (event) =>
    event.type === 'IdempotencyKeyClaimed'
      ? { kind: 'claimed', resourceId: event.data.messageId, requestHash: event.data.requestHash, claimedAt: event.data.claimedAt }
      : { kind: 'released', resourceId: event.data.messageId },
  claimed: ({ accountId, keyHash, requestHash, resourceId, claimedAt }) => ({
    type: 'IdempotencyKeyClaimed',
    version: 1,
    data: { accountId, keyHash, requestHash, messageId: resourceId, claimedAt },
  }),
  released: ({ resourceId, code, releasedAt }) => ({ type: 'IdempotencyKeyReleased', version: 1, data: { messageId: resourceId, code, releasedAt } }),
};

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
