import type { SubscribableEventType } from '@switchboard/contracts';

/** The settings a client chooses for an endpoint. */
export interface WebhookSettings {
  url: string;
  events: SubscribableEventType[];
  description: string | null;
  enabled: boolean;
}

/** Webhook: an account's endpoint for its events. Absent until created; deleted is terminal. */
export type Webhook =
  | { status: 'absent' }
  | ({
      status: 'active';
      webhookId: string;
      accountId: string;
      createdAt: string;
      /** The secret that signs now. */
      secretFingerprint: string;
      /** The secret before the last rotation, which also signs until `validUntil`. */
      previous: { fingerprint: string; validUntil: string } | null;
    } & WebhookSettings)
  | { status: 'deleted'; webhookId: string; accountId: string };

export type ActiveWebhook = Extract<Webhook, { status: 'active' }>;

export const initialState: Webhook = { status: 'absent' };
