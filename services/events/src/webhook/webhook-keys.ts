import { webhookKeyEventParser } from '@switchboard/contracts';
import type { WebhookKeyEvent } from '@switchboard/contracts';
import type { KeyEvents } from '@switchboard/service-kit';

/** Webhook creates' Idempotency-Key events, for the shared mechanism (service-kit IdempotencyKeys). */
export const WEBHOOK_KEY_EVENTS: KeyEvents<WebhookKeyEvent> = {
  parse: (raw) => webhookKeyEventParser.parse(raw) as WebhookKeyEvent,
  read: (event) =>
    event.type === 'WebhookKeyClaimed'
      ? { kind: 'claimed', resourceId: event.data.webhookId, requestHash: event.data.requestHash, claimedAt: event.data.claimedAt }
      : { kind: 'released', resourceId: event.data.webhookId },
  claimed: ({ accountId, keyHash, requestHash, resourceId, claimedAt }) => ({
    type: 'WebhookKeyClaimed',
    version: 1,
    data: { accountId, keyHash, requestHash, webhookId: resourceId, claimedAt },
  }),
  released: ({ resourceId, code, releasedAt }) => ({ type: 'WebhookKeyReleased', version: 1, data: { webhookId: resourceId, code, releasedAt } }),
};
