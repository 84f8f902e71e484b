import { sessionKeyEventParser } from '@switchboard/contracts';
import type { SessionKeyEvent } from '@switchboard/contracts';
import type { KeyEvents } from '@switchboard/service-kit';

/** Session creates' Idempotency-Key events, for the shared mechanism (service-kit IdempotencyKeys). */
export const SESSION_KEY_EVENTS: KeyEvents<SessionKeyEvent> = {
  parse: (raw) => sessionKeyEventParser.parse(raw) as SessionKeyEvent,
  read: (event) =>
    event.type === 'SessionKeyClaimed'
      ? { kind: 'claimed', resourceId: event.data.sessionId, requestHash: event.data.requestHash, claimedAt: event.data.claimedAt }
      : { kind: 'released', resourceId: event.data.sessionId },
  claimed: ({ accountId, keyHash, requestHash, resourceId, claimedAt }) => ({
    type: 'SessionKeyClaimed',
    version: 1,
    data: { accountId, keyHash, requestHash, sessionId: resourceId, claimedAt },
  }),
  released: ({ resourceId, code, releasedAt }) => ({ type: 'SessionKeyReleased', version: 1, data: { sessionId: resourceId, code, releasedAt } }),
};
