import { describe, it } from 'vitest';
import type { WebhookEvent } from '@switchboard/contracts';
import { specFor } from '@switchboard/service-kit/testing';
import type { WebhookCommand } from './commands.js';
import { decide } from './decide.js';
import { WebhookLimitReached, WebhookNotFound } from './errors.js';
import { evolve } from './evolve.js';
import { initialState } from './state.js';
import type { Webhook } from './state.js';

const given = specFor<WebhookCommand, Webhook, WebhookEvent>({ decide, evolve, initial: initialState });
const webhookId = 'wh_01JD8Z9C2D3E4F5G6H7J8K9M0N';
const accountId = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const otherAccount = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E2G';
const at = '2026-11-21T10:00:00.000Z';
const now = new Date(at);
const url = 'https://example.com/hook';

const create = (existing = 0): WebhookCommand => ({
  type: 'CreateWebhook', webhookId, accountId, url, events: ['message.status'], description: null, secretFingerprint: '0123456789abcdef', existing, now,
});
const created: WebhookEvent = {
  type: 'WebhookCreated', version: 1,
  data: { webhookId, accountId, url, events: ['message.status'], description: null, enabled: true, secretFingerprint: '0123456789abcdef', createdAt: at },
};
const deleted: WebhookEvent = { type: 'WebhookDeleted', version: 1, data: { webhookId, deletedAt: at } };

describe('webhook decider', () => {
  it('creates an enabled webhook, once per id', () => {
    given([]).when(create()).then([created]);
    given([created]).when(create()).then([]);
  });

  it('refuses an eleventh webhook of an account', () => {
    given([]).when(create(10)).thenThrows(WebhookLimitReached, { code: 'WEBHOOK_LIMIT_REACHED' });
  });

  it('answers not found to another account, for an absent and for a deleted webhook', () => {
    given([created]).when({ type: 'DeleteWebhook', accountId: otherAccount, now }).thenThrows(WebhookNotFound, { code: 'WEBHOOK_NOT_FOUND' });
    given([]).when({ type: 'UpdateWebhook', accountId, changes: { enabled: false }, now }).thenThrows(WebhookNotFound);
    given([created, deleted]).when({ type: 'RotateSecret', accountId, secretFingerprint: 'fedcba9876543210', overlapMs: 1000, now }).thenThrows(WebhookNotFound);
  });

  it('records the whole settings after an update, and nothing when nothing changes', () => {
    given([created]).when({ type: 'UpdateWebhook', accountId, changes: { enabled: false, description: 'CRM' }, now }).then([
      { type: 'WebhookUpdated', version: 1, data: { webhookId, url, events: ['message.status'], description: 'CRM', enabled: false, updatedAt: at } },
    ]);
    given([created]).when({ type: 'UpdateWebhook', accountId, changes: { url }, now }).then([]);
  });

  it('keeps the previous secret valid for the overlap after a rotation', () => {
    const rotate: WebhookCommand = { type: 'RotateSecret', accountId, secretFingerprint: 'fedcba9876543210', overlapMs: 24 * 3600_000, now };
    given([created]).when(rotate).then([
      {
        type: 'WebhookSecretRotated', version: 1,
        data: { webhookId, secretFingerprint: 'fedcba9876543210', previousFingerprint: '0123456789abcdef', previousValidUntil: '2026-11-22T10:00:00.000Z', rotatedAt: at },
      },
    ]);
    given([created]).when(rotate).thenState({ secretFingerprint: 'fedcba9876543210', previous: { fingerprint: '0123456789abcdef', validUntil: '2026-11-22T10:00:00.000Z' } });
  });

  it('deletes for good', () => {
    given([created]).when({ type: 'DeleteWebhook', accountId, now }).then([deleted]);
    given([created]).when({ type: 'DeleteWebhook', accountId, now }).thenState({ status: 'deleted' });
  });
});
