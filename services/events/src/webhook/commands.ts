import type { SubscribableEventType } from '@switchboard/contracts';

/** What a client may ask of a webhook; `now` is the handler's clock, ids and secrets are minted outside. */
export type WebhookCommand =
  | {
      type: 'CreateWebhook';
      webhookId: string;
      accountId: string;
      url: string;
      events: SubscribableEventType[];
      description: string | null;
      secretFingerprint: string;
      /** Live webhooks the account has now (the limit is 10). */
      existing: number;
      now: Date;
    }
  | {
      type: 'UpdateWebhook';
      accountId: string;
      changes: { url?: string; events?: SubscribableEventType[]; description?: string | null; enabled?: boolean };
      now: Date;
    }
  | { type: 'RotateSecret'; accountId: string; secretFingerprint: string; overlapMs: number; now: Date }
  | { type: 'DeleteWebhook'; accountId: string; now: Date };
