import { CREATE_SESSION_KIND, CREATE_WEBHOOK_KIND, EventsSubjects, idempotencyKeyHash, idempotencyRequestHash, SessionsSubjects } from '@switchboard/contracts';
import type { CreateSessionCommand } from '@switchboard/contracts';
import type { InProcessBus } from '@switchboard/bus';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, bearer, createAccount, quotaBus, startGateway } from './support.js';
import type { FakeQuota } from './support.js';

describe('Idempotency-Key over HTTP', () => {
  let bus: InProcessBus;
  let quota: FakeQuota;
  let app: FastifyInstance;
  const creates: CreateSessionCommand[] = [];

  beforeEach(async () => {
    ({ bus, quota } = await quotaBus());
    creates.length = 0;
    // Stands in for the sessions service: records what the gateway asked for.
    await bus.subscribe(SessionsSubjects.create.subject, (message) => {
      creates.push(SessionsSubjects.create.request.parse(message.data));
      return { sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', qrCode: 'data:image/png;base64,iVBORw0KGgo=', status: 'pending' };
    });
    app = await startGateway(bus);
  });
  afterEach(async () => {
    await app.close();
    await bus.close();
  });

  it('passes the key and body hashes (never the raw key) to the sessions service on create', async () => {
    const { apiKey } = await createAccount(app);
    const headers = { ...bearer(apiKey), 'idempotency-key': 'create-1' };
    expect((await app.inject({ method: 'POST', url: '/v1/sessions', headers, payload: { name: 'Support' } })).statusCode).toBe(201);
    expect((await app.inject({ method: 'POST', url: '/v1/sessions', headers: bearer(apiKey), payload: {} })).statusCode).toBe(201);
    expect(creates[0]?.idempotency).toEqual({
      keyHash: idempotencyKeyHash('create-1'),
      requestHash: idempotencyRequestHash(CREATE_SESSION_KIND, { name: 'Support' }),
    });
    expect(JSON.stringify(creates[0])).not.toContain('create-1');
    expect(creates[1]?.idempotency).toBeUndefined();
  });

  it('answers 400 for a malformed key on create and asks the sessions service nothing', async () => {
    const { apiKey } = await createAccount(app);
    const response = await app.inject({ method: 'POST', url: '/v1/sessions', headers: { ...bearer(apiKey), 'idempotency-key': 'has space' } });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'headers.idempotency-key' }] });
    expect(creates).toHaveLength(0);
  });

  it('refuses Idempotency-Key on admin POSTs, whose one-time API keys cannot be replayed, and creates nothing', async () => {
    const before = quota.accounts.size;
    const headers = { ...bearer(ADMIN_KEY), 'idempotency-key': 'acct-1' };
    const account = await app.inject({ method: 'POST', url: '/v1/admin/accounts', headers, payload: { plan: 'basic' } });
    expect(account.statusCode).toBe(400);
    expect(account.json().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [{ path: 'headers.idempotency-key', message: expect.stringMatching(/not supported/) }],
    });
    expect(quota.accounts.size).toBe(before);

    const { accountId } = await createAccount(app);
    const keysBefore = quota.keys.size;
    const key = await app.inject({ method: 'POST', url: `/api/v1/admin/accounts/${accountId}/keys`, headers, payload: {} });
    expect(key.statusCode).toBe(400);
    expect(key.json().error.details[0].path).toBe('headers.idempotency-key');
    expect(quota.keys.size).toBe(keysBefore);
  });

  it('passes a webhook create\'s key and body hashes to the events service, and marks its replay', async () => {
    const asked: unknown[] = [];
    await bus.subscribe(EventsSubjects.createWebhook.subject, (message) => {
      const command = EventsSubjects.createWebhook.request.parse(message.data);
      asked.push(command);
      const webhook = {
        webhookId: 'wh_01JD8Z6Q9V4N2C3B5X7M1K0P2R', url: command.body.url, events: ['message.status'], description: null, enabled: true,
        createdAt: '2026-11-21T10:00:00.000Z', secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
      };
      return asked.length > 1 ? { ...webhook, replayed: true } : webhook;
    });
    const { apiKey } = await createAccount(app);
    const headers = { ...bearer(apiKey), 'idempotency-key': 'hook-1' };
    const payload = { url: 'https://example.com/hook', events: ['message.status'] };
    const first = await app.inject({ method: 'POST', url: '/v1/webhooks', headers, payload });
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const again = await app.inject({ method: 'POST', url: '/v1/webhooks', headers, payload });
    expect(again.statusCode).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().data).toEqual(first.json().data);
    expect(asked[0]).toMatchObject({ idempotency: { keyHash: idempotencyKeyHash('hook-1'), requestHash: idempotencyRequestHash(CREATE_WEBHOOK_KIND, payload) } });
    expect(JSON.stringify(asked)).not.toContain('hook-1');
  });

  it('refuses Idempotency-Key on the other webhook POSTs, which are not replayed by key, and asks the events service nothing', async () => {
    let asked = 0;
    for (const subject of [EventsSubjects.rotateSecret, EventsSubjects.replay, EventsSubjects.test]) {
      await bus.subscribe(subject.subject, () => {
        asked += 1;
        throw new Error('not expected');
      });
    }
    const { apiKey } = await createAccount(app);
    const headers = { ...bearer(apiKey), 'idempotency-key': 'hook-1' };
    const webhookId = 'wh_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
    const requests = [
      { url: `/v1/webhooks/${webhookId}/secret`, payload: {} },
      { url: `/v1/webhooks/${webhookId}/replay`, payload: { since: '2026-11-21T10:00:00.000Z' } },
      { url: `/v1/webhooks/${webhookId}/test`, payload: {} },
    ];
    for (const request of requests) {
      const response = await app.inject({ method: 'POST', headers, ...request });
      expect(response.statusCode, request.url).toBe(400);
      expect(response.json().error.details[0]).toMatchObject({ path: 'headers.idempotency-key', message: expect.stringMatching(/only a webhook create is replayed by key/) });
    }
    expect(asked).toBe(0);
  });
});
