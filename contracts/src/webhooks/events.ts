import { z } from 'zod';
import { AccountId, WebhookId } from '../common/ids.js';
import { IsoTimestamp } from '../common/time.js';
import { defineEvent } from '../events/define.js';
import { createEventParser } from '../events/parser.js';
import { SubscribableEventType } from '../public-events/catalogue.js';

// Events of the `webhook-wh_…` streams (events service). Secrets never appear here: the service
// seals them in its own store; events carry a fingerprint (16 hex of SHA-256) to match them.

export const SecretFingerprint = z.string().regex(/^[0-9a-f]{16}$/);

const settings = {
  url: z.string().min(1).max(2048),
  events: z.array(SubscribableEventType),
  description: z.string().max(500).nullable(),
  enabled: z.boolean(),
};

/** An account registered an endpoint. */
export const WebhookCreated = defineEvent('WebhookCreated', 1, {
  webhookId: WebhookId,
  accountId: AccountId,
  ...settings,
  secretFingerprint: SecretFingerprint,
  createdAt: IsoTimestamp,
});
export type WebhookCreated = z.infer<typeof WebhookCreated>;

/** New settings (the whole set after the change). */
export const WebhookUpdated = defineEvent('WebhookUpdated', 1, { webhookId: WebhookId, ...settings, updatedAt: IsoTimestamp });
export type WebhookUpdated = z.infer<typeof WebhookUpdated>;

/** A new secret signs from now on; the previous one also signs until `previousValidUntil`. */
export const WebhookSecretRotated = defineEvent('WebhookSecretRotated', 1, {
  webhookId: WebhookId,
  secretFingerprint: SecretFingerprint,
  previousFingerprint: SecretFingerprint,
  previousValidUntil: IsoTimestamp,
  rotatedAt: IsoTimestamp,
});
export type WebhookSecretRotated = z.infer<typeof WebhookSecretRotated>;

/** The endpoint is gone: nothing more is sent to it, and its id answers 404. */
export const WebhookDeleted = defineEvent('WebhookDeleted', 1, { webhookId: WebhookId, deletedAt: IsoTimestamp });
export type WebhookDeleted = z.infer<typeof WebhookDeleted>;

export const WEBHOOK_EVENTS = [WebhookCreated, WebhookUpdated, WebhookSecretRotated, WebhookDeleted] as const;

export const WebhookEvent = z.discriminatedUnion('type', [...WEBHOOK_EVENTS]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

export const webhookEventParser = createEventParser(WEBHOOK_EVENTS);
