import { z } from 'zod';
import { AccountId, WebhookId } from '../common/ids.js';
import { IsoTimestamp } from '../common/time.js';
import { defineEvent } from '../events/define.js';
import { createEventParser } from '../events/parser.js';
import { Sha256Hex } from '../messages/content.js';

// Idempotency-Key claims of webhook creates, kept in the events service's own store under
// `idempotency-<accountId>-<keyHash>` (common/idempotency.ts). Internal bookkeeping: not published.

/** The `kind` a create's request hash covers (`idempotencyRequestHash(CREATE_WEBHOOK_KIND, body)`). */
export const CREATE_WEBHOOK_KIND = 'createWebhook';

/**
 * The key now stands for this create request and this webhook id, minted before the webhook is
 * recorded. The first claim wins; a later one with the same hash answers for this webhook.
 */
export const WebhookKeyClaimed = defineEvent('WebhookKeyClaimed', 1, {
  accountId: AccountId,
  keyHash: Sha256Hex,
  requestHash: Sha256Hex,
  webhookId: WebhookId,
  claimedAt: IsoTimestamp,
});
export type WebhookKeyClaimed = z.infer<typeof WebhookKeyClaimed>;

/** The claimed create failed (a refused URL, the account's limit), so the key is free again. */
export const WebhookKeyReleased = defineEvent('WebhookKeyReleased', 1, {
  webhookId: WebhookId,
  code: z.string().min(1).max(64),
  releasedAt: IsoTimestamp,
});
export type WebhookKeyReleased = z.infer<typeof WebhookKeyReleased>;

export const WEBHOOK_KEY_EVENTS = [WebhookKeyClaimed, WebhookKeyReleased] as const;
export const WebhookKeyEvent = z.discriminatedUnion('type', [...WEBHOOK_KEY_EVENTS]);
export type WebhookKeyEvent = z.infer<typeof WebhookKeyEvent>;
export const webhookKeyEventParser = createEventParser(WEBHOOK_KEY_EVENTS);
