import { MAX_WEBHOOKS_PER_ACCOUNT } from '@switchboard/contracts';
import type { WebhookEvent } from '@switchboard/contracts';
import type { WebhookCommand } from './commands.js';
import { WebhookLimitReached, WebhookNotFound } from './errors.js';
import type { ActiveWebhook, Webhook } from './state.js';

type Command<T extends WebhookCommand['type']> = Extract<WebhookCommand, { type: T }>;

/** The webhook's rules: one per id, ten per account, only its own account sees or changes it. */
export function decide(command: WebhookCommand, state: Webhook): WebhookEvent[] {
  switch (command.type) {
    case 'CreateWebhook':
      return create(command, state);
    case 'UpdateWebhook':
      return update(command, owned(state, command.accountId));
    case 'RotateSecret':
      return rotate(command, owned(state, command.accountId));
    case 'DeleteWebhook':
      return [{ type: 'WebhookDeleted', version: 1, data: { webhookId: owned(state, command.accountId).webhookId, deletedAt: command.now.toISOString() } }];
    default:
      return assertNever(command);
  }
}

function owned(state: Webhook, accountId: string): ActiveWebhook {
  if (state.status !== 'active' || state.accountId !== accountId) throw new WebhookNotFound();
  return state;
}

function create(c: Command<'CreateWebhook'>, state: Webhook): WebhookEvent[] {
  // The id is minted once per request: seeing it again is the same request retried.
  if (state.status !== 'absent') return [];
  if (c.existing >= MAX_WEBHOOKS_PER_ACCOUNT) throw new WebhookLimitReached();
  const { webhookId, accountId, url, events, description, secretFingerprint } = c;
  return [{ type: 'WebhookCreated', version: 1, data: { webhookId, accountId, url, events, description, enabled: true, secretFingerprint, createdAt: c.now.toISOString() } }];
}

function update(c: Command<'UpdateWebhook'>, state: ActiveWebhook): WebhookEvent[] {
  const next = {
    url: c.changes.url ?? state.url,
    events: c.changes.events ?? state.events,
    description: c.changes.description === undefined ? state.description : c.changes.description,
    enabled: c.changes.enabled ?? state.enabled,
  };
  const same = next.url === state.url && next.description === state.description && next.enabled === state.enabled && next.events.join() === state.events.join();
  if (same) return [];
  return [{ type: 'WebhookUpdated', version: 1, data: { webhookId: state.webhookId, ...next, updatedAt: c.now.toISOString() } }];
}

function rotate(c: Command<'RotateSecret'>, state: ActiveWebhook): WebhookEvent[] {
  const previousValidUntil = new Date(c.now.getTime() + c.overlapMs).toISOString();
  return [{
    type: 'WebhookSecretRotated',
    version: 1,
    data: { webhookId: state.webhookId, secretFingerprint: c.secretFingerprint, previousFingerprint: state.secretFingerprint, previousValidUntil, rotatedAt: c.now.toISOString() },
  }];
}

function assertNever(value: never): never {
  throw new Error(`unhandled command ${JSON.stringify(value)}`);
}
