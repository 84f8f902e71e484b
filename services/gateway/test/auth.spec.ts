import { success, successEnvelope } from '@switchboard/contracts';
import type { EndpointContract } from '@switchboard/contracts';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoute } from '../src/index.js';
import { ADMIN_KEY, bearer, createAccount, quotaBus, startGateway, TRACE_ID } from './support.js';
import type { FakeQuota } from './support.js';
import type { InProcessBus } from '@switchboard/bus';

/** A resource endpoint (scope `api`) that shows who the gateway thinks is calling. */
const WHOAMI = {
  method: 'GET',
  path: '/v1/whoami',
  status: 200,
  response: successEnvelope(z.object({ accountId: z.string(), plan: z.string().nullable() })),
} as const satisfies EndpointContract;

const whoami = (app: FastifyInstance) =>
  defineRoute(app, WHOAMI, async (ctx) => success({ accountId: ctx.accountId, plan: ctx.principal.plan }));

let bus: InProcessBus;
let quota: FakeQuota;
let app: FastifyInstance;

beforeEach(async () => {
  ({ bus, quota } = await quotaBus());
  app = await startGateway(bus, { routes: [whoami] });
});
afterEach(async () => {
  await app.close();
  await bus.close();
});

function expectUnauthorized(response: Awaited<ReturnType<FastifyInstance['inject']>>) {
  expect(response.statusCode).toBe(401);
  expect(response.headers['www-authenticate']).toMatch(/^Bearer\b/);
  const body = response.json();
  expect(body).toMatchObject({ success: false, error: { code: 'UNAUTHORIZED' } });
  expect(body.error.requestId).toBe(response.headers['x-request-id']);
}

describe('authentication', () => {
  it('answers 401 without an Authorization header, under both prefixes', async () => {
    for (const url of ['/v1/whoami', '/api/v1/whoami']) {
      const response = await app.inject({ method: 'GET', url });
      expectUnauthorized(response);
      expect(response.json().error.message).toMatch(/Missing Authorization header/);
    }
  });

  it('answers 401 for another scheme', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/whoami', headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
    expectUnauthorized(response);
    expect(response.json().error.message).toMatch(/Bearer scheme/);
  });

  it('answers 401 for an unknown key and for a malformed one', async () => {
    expectUnauthorized(await app.inject({ method: 'GET', url: '/v1/whoami', headers: bearer('sbk_' + 'x'.repeat(43)) }));
    expectUnauthorized(await app.inject({ method: 'GET', url: '/v1/whoami', headers: bearer('short') }));
  });

  it('lets a valid key through with its account and plan', async () => {
    const { accountId, apiKey } = await createAccount(app, 'free');
    const response = await app.inject({ method: 'GET', url: '/api/v1/whoami', headers: bearer(apiKey) });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, data: { accountId, plan: 'free' } });
    expect(response.headers['x-request-id']).toMatch(TRACE_ID);
  });

  it('looks a key up once and serves repeats from the cache', async () => {
    const { apiKey } = await createAccount(app);
    const before = quota.authenticateCalls;
    await Promise.all([1, 2, 3, 4].map(() => app.inject({ method: 'GET', url: '/v1/whoami', headers: bearer(apiKey) })));
    expect(quota.authenticateCalls - before).toBe(1);
  });

  it('keeps the operator key (SWITCHBOARD_ADMIN_API_KEY) off account endpoints: it has no account', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/whoami', headers: bearer(ADMIN_KEY) });
    expect(response.statusCode).toBe(403);
    expect(response.json().error.code).toBe('FORBIDDEN');
  });
});

describe('admin API', () => {
  it('creates an account and returns its key once; the key works', async () => {
    const response = await app.inject({ method: 'POST', url: '/v1/admin/accounts', headers: bearer(ADMIN_KEY), payload: { name: 'Acme', plan: 'premium' } });
    expect(response.statusCode).toBe(201);
    const { data } = response.json();
    expect(data).toEqual({ accountId: expect.stringMatching(/^acc_/), name: 'Acme', plan: 'premium', keyId: expect.stringMatching(/^key_/), apiKey: expect.stringMatching(/^sbk_[A-Za-z0-9_-]{43}$/) });
    const account = await app.inject({ method: 'GET', url: `/v1/admin/accounts/${data.accountId}`, headers: bearer(ADMIN_KEY) });
    expect(account.json()).toEqual({ success: true, data: { accountId: data.accountId, name: 'Acme', plan: 'premium', activeSessions: 0, messagesToday: 0, closedAt: null } });
    expect((await app.inject({ method: 'GET', url: '/v1/whoami', headers: bearer(data.apiKey) })).statusCode).toBe(200);
  });

  it('refuses every admin endpoint to a key without the admin scope (403), and to no key (401)', async () => {
    const { accountId, apiKey } = await createAccount(app);
    const calls = [
      { method: 'POST', url: '/v1/admin/accounts', payload: { plan: 'free' } },
      { method: 'GET', url: `/v1/admin/accounts/${accountId}` },
      { method: 'GET', url: '/v1/admin/accounts' },
      { method: 'GET', url: `/v1/admin/accounts/${accountId}/keys` },
      { method: 'PATCH', url: `/v1/admin/accounts/${accountId}`, payload: { plan: 'enterprise' } },
      { method: 'POST', url: `/v1/admin/accounts/${accountId}/keys`, payload: {} },
      { method: 'DELETE', url: '/v1/admin/keys/key_01JD8Z5X0A1B2C3D4E5F6G7H8J' },
    ] as const;
    for (const call of calls) {
      const forbidden = await app.inject({ ...call, headers: bearer(apiKey) });
      expect([call.url, forbidden.statusCode, forbidden.json().error.code]).toEqual([call.url, 403, 'FORBIDDEN']);
      expect((await app.inject(call)).statusCode).toBe(401);
    }
    expect(quota.accounts.get(accountId)?.plan).toBe('basic');
  });

  it('never shows one account another account (a non-admin key gets 403, not the data)', async () => {
    const mine = await createAccount(app);
    const theirs = await createAccount(app);
    const response = await app.inject({ method: 'GET', url: `/v1/admin/accounts/${theirs.accountId}`, headers: bearer(mine.apiKey) });
    expect(response.statusCode).toBe(403);
    expect(response.body).not.toContain(theirs.accountId);
  });

  it('accepts an account key that was given the admin scope', async () => {
    const { accountId } = await createAccount(app);
    const issued = await app.inject({ method: 'POST', url: `/v1/admin/accounts/${accountId}/keys`, headers: bearer(ADMIN_KEY), payload: { scopes: ['api', 'admin'] } });
    expect(issued.statusCode).toBe(201);
    const { apiKey } = issued.json().data;
    const response = await app.inject({ method: 'GET', url: `/v1/admin/accounts/${accountId}`, headers: bearer(apiKey) });
    expect(response.statusCode).toBe(200);
  });

  it('shows a plan change on the next request, to the admin API and to the key', async () => {
    const { accountId, apiKey } = await createAccount(app, 'free');
    expect((await app.inject({ method: 'GET', url: '/v1/whoami', headers: bearer(apiKey) })).json().data.plan).toBe('free');
    const patched = await app.inject({ method: 'PATCH', url: `/v1/admin/accounts/${accountId}`, headers: bearer(ADMIN_KEY), payload: { plan: 'premium' } });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data.plan).toBe('premium');
    await expect.poll(async () => (await app.inject({ method: 'GET', url: '/v1/whoami', headers: bearer(apiKey) })).json().data.plan, { timeout: 1_000 }).toBe('premium');
  });

  it('answers 404 ACCOUNT_NOT_FOUND and KEY_NOT_FOUND from the quota service', async () => {
    const account = await app.inject({ method: 'GET', url: '/v1/admin/accounts/acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', headers: bearer(ADMIN_KEY) });
    expect([account.statusCode, account.json().error.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    const key = await app.inject({ method: 'DELETE', url: '/api/v1/admin/keys/key_01JD8Z5X0A1B2C3D4E5F6G7H8J', headers: bearer(ADMIN_KEY) });
    expect([key.statusCode, key.json().error.code]).toEqual([404, 'KEY_NOT_FOUND']);
  });
});
