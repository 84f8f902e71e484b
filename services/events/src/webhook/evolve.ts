import type { WebhookEvent } from '@switchboard/contracts';
import type { Webhook } from './state.js';

/** Folds one event of a `webhook-wh_…` stream. */
export function evolve(state: Webhook, event: WebhookEvent): Webhook {
  switch (event.type) {
    case 'WebhookCreated': {
      const { secretFingerprint, createdAt, ...rest } = event.data;
      return { status: 'active', ...rest, createdAt, secretFingerprint, previous: null };
    }
    case 'WebhookUpdated': {
      if (state.status !== 'active') return state;
      const { url, events, description, enabled } = event.data;
      return { ...state, url, events, description, enabled };
    }
    case 'WebhookSecretRotated':
      if (state.status !== 'active') return state;
      return { ...state, secretFingerprint: event.data.secretFingerprint, previous: { fingerprint: event.data.previousFingerprint, validUntil: event.data.previousValidUntil } };
    case 'WebhookDeleted':
      return state.status === 'active' ? { status: 'deleted', webhookId: state.webhookId, accountId: state.accountId } : state;
  }
}
