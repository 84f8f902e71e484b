import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InProcessBus } from '@switchboard/bus';
import { CREATE_WEBHOOK_KIND, idempotencyKeyHash, idempotencyRequestHash } from '@switchboard/contracts';
import type { CreateWebhookBody, IdempotencyRef } from '@switchboard/contracts';
import { loadConfig } from '@switchboard/service-kit';
import { createLogger } from '@switchboard/telemetry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEventsService } from '../src/index.js';
import type { RunningEventsService } from '../src/index.js';

const ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
/** What the gateway hands over for `key` and `body`: hashes only. */
const keyOf = (key: string, body: CreateWebhookBody): IdempotencyRef => ({ keyHash: idempotencyKeyHash(key), requestHash: idempotencyRequestHash(CREATE_WEBHOOK_KIND, body) });

/**
 * Webhook creates. Nothing here connects anywhere: host names are answered by the test's resolver,
 * and a create only checks its URL's addresses.
 */
describe('webhook creates', () => {
  let dataDir: string;
  let bus: InProcessBus;
  let events: RunningEventsService;
  const resolver = async (hostname: string) => {
    if (hostname === 'hooks.example.test') return [{ address: '93.184.216.34', family: 4 as const }];
    if (hostname === 'inside.example.test') return [{ address: '10.1.2.3', family: 4 as const }];
    throw new Error(`ENOTFOUND ${hostname}`);
  };
  const create = (key: string, body: CreateWebhookBody) => events.api.createWebhook({ accountId: ACCOUNT, body, idempotency: keyOf(key, body) });

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sb-webhook-keys-'));
    bus = new InProcessBus();
    const config = loadConfig({ SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK: 'false' });
    events = await startEventsService({ bus, config, logger: createLogger({ service: 'test', level: 'silent' }), resolver, pollMs: 100 });
  });
  afterEach(async () => {
    await events.close();
    await bus.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers a retry for the first webhook, its secret included, and makes no second one', async () => {
    const body = { url: 'https://hooks.example.test/in', description: 'CRM' };
    const first = await create('hook-1', body);
    expect(first.replayed).toBeUndefined();
    const again = await create('hook-1', body);
    expect(again).toEqual({ ...first, replayed: true });
    expect(events.api.listWebhooks(ACCOUNT).webhooks.map((w) => w.webhookId)).toEqual([first.webhookId]);
  });

  it('makes one webhook for two creates with the same key at once', async () => {
    const body = { url: 'https://hooks.example.test/in' };
    const [a, b] = await Promise.all([create('hook-2', body), create('hook-2', body)]);
    expect(a.webhookId).toBe(b.webhookId);
    expect(a.secret).toBe(b.secret);
    expect([a.replayed, b.replayed].filter(Boolean)).toHaveLength(1);
    expect(events.api.listWebhooks(ACCOUNT).webhooks).toHaveLength(1);
  });

  it('refuses the key with another body (409 IDEMPOTENCY_KEY_REUSED), creating nothing', async () => {
    await create('hook-3', { url: 'https://hooks.example.test/in' });
    await expect(create('hook-3', { url: 'https://hooks.example.test/other' })).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(events.api.listWebhooks(ACCOUNT).webhooks).toHaveLength(1);
  });

  it('frees the key of a create that failed: the corrected request with the same key is a new create', async () => {
    await expect(create('hook-4', { url: 'https://inside.example.test/in' })).rejects.toMatchObject({ code: 'WEBHOOK_URL_FORBIDDEN' });
    const created = await create('hook-4', { url: 'https://hooks.example.test/in' });
    expect(created.replayed).toBeUndefined();
    expect(events.api.listWebhooks(ACCOUNT).webhooks.map((w) => w.webhookId)).toEqual([created.webhookId]);
  });

  it('answers the webhook as it is now: after a rotation, with the secret that signs now', async () => {
    const body = { url: 'https://hooks.example.test/in' };
    const first = await create('hook-5', body);
    const rotated = await events.api.rotateSecret({ accountId: ACCOUNT, webhookId: first.webhookId });
    expect(await create('hook-5', body)).toMatchObject({ webhookId: first.webhookId, secret: rotated.secret, replayed: true });
  });

  it('answers 404 for a webhook deleted since, and never makes another under the key', async () => {
    const body = { url: 'https://hooks.example.test/in' };
    const first = await create('hook-6', body);
    await events.api.deleteWebhook({ accountId: ACCOUNT, webhookId: first.webhookId });
    await expect(create('hook-6', body)).rejects.toMatchObject({ code: 'WEBHOOK_NOT_FOUND' });
    expect(events.api.listWebhooks(ACCOUNT).webhooks).toEqual([]);
  });

  it('keeps an account at its limit of 10 when creates race, one of them refused for its URL', async () => {
    for (let n = 0; n < 9; n++) await events.api.createWebhook({ accountId: ACCOUNT, body: { url: `https://hooks.example.test/${n}` } });
    const outcomes = await Promise.allSettled([
      events.api.createWebhook({ accountId: ACCOUNT, body: { url: 'https://hooks.example.test/a' } }),
      events.api.createWebhook({ accountId: ACCOUNT, body: { url: 'https://inside.example.test/b' } }),
      events.api.createWebhook({ accountId: ACCOUNT, body: { url: 'https://hooks.example.test/c' } }),
    ]);
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? 'created' : (o.reason as { code: string }).code))).toEqual(['created', 'WEBHOOK_URL_FORBIDDEN', 'WEBHOOK_LIMIT_REACHED']);
    expect(events.api.listWebhooks(ACCOUNT).webhooks).toHaveLength(10);
  });
});
