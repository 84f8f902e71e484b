import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionsSubjects, success, successEnvelope } from '@switchboard/contracts';
import type { EndpointContract } from '@switchboard/contracts';
import { InProcessBus } from '@switchboard/bus';
import { loadConfig } from '@switchboard/service-kit';
// An integration test, not a dependency of the gateway's code: the real quota service stands
// behind the bus here exactly as it does in production (the gateway's src never imports it).
// eslint-disable-next-line @nx/enforce-module-boundaries
import { startQuotaService } from '@switchboard/quota';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoute } from '../src/index.js';
import { ADMIN_KEY, bearer, createAccount, silentLogger, startGateway } from './support.js';

const WHOAMI = {
  method: 'GET',
  path: '/v1/whoami',
  status: 200,
  response: successEnvelope(z.object({ accountId: z.string(), plan: z.string().nullable() })),
} as const satisfies EndpointContract;
const whoami = (app: FastifyInstance) => defineRoute(app, WHOAMI, async (ctx) => success({ accountId: ctx.accountId, plan: ctx.principal.plan }));

const REVOCATION_BOUND_MS = 1_000;
const SLACK_MS = 250; // a loaded 2-core machine: the poll's own round trips, GC pauses

let dataDir: string;
let bus: InProcessBus;
let quota: Awaited<ReturnType<typeof startQuotaService>>;
let gateways: [FastifyInstance, FastifyInstance];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sb-gateway-quota-'));
  bus = new InProcessBus({ logger: { error() {}, warn() {}, info() {} } });
  const config = loadConfig({ SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_ADMIN_API_KEY: ADMIN_KEY, SWITCHBOARD_DEFAULT_PLAN: 'basic' });
  quota = await startQuotaService({ bus, config, logger: silentLogger() });
  gateways = [await startGateway(bus, { routes: [whoami] }), await startGateway(bus, { routes: [whoami] })];
});
afterAll(async () => {
  await Promise.all(gateways.map((app) => app.close()));
  await quota?.close();
  await bus.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const get = (app: FastifyInstance, url: string, key: string) => app.inject({ method: 'GET', url, headers: bearer(key) });

describe('with the real quota service', () => {
  it('creates an account whose key authenticates; unknown keys are 401', async () => {
    const [a] = gateways;
    const { accountId, apiKey } = await createAccount(a, 'free');
    const me = await get(a, '/v1/whoami', apiKey);
    expect([me.statusCode, me.json()]).toEqual([200, { success: true, data: { accountId, plan: 'free' } }]);
    const unknown = await get(a, '/v1/whoami', `sbk_${'A'.repeat(43)}`);
    expect(unknown.statusCode).toBe(401);
    expect(unknown.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  it('refuses a key revoked through one gateway on the other within one second', async () => {
    const [a, b] = gateways;
    const { accountId } = await createAccount(a);
    const issued = await b.inject({ method: 'POST', url: `/v1/admin/accounts/${accountId}/keys`, headers: bearer(ADMIN_KEY) });
    expect(issued.statusCode).toBe(201);
    const { keyId, apiKey } = issued.json().data;
    for (const app of gateways) expect((await get(app, '/v1/whoami', apiKey)).statusCode).toBe(200);
    const startedAt = Date.now();
    const revoked = await a.inject({ method: 'DELETE', url: `/api/v1/admin/keys/${keyId}`, headers: bearer(ADMIN_KEY) });
    expect(revoked.json()).toEqual({ success: true, message: 'API key revoked' });
    let status = (await get(b, '/v1/whoami', apiKey)).statusCode;
    while (status === 200 && Date.now() - startedAt < REVOCATION_BOUND_MS + SLACK_MS) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = (await get(b, '/v1/whoami', apiKey)).statusCode;
    }
    expect(status).toBe(401);
    expect(Date.now() - startedAt).toBeLessThanOrEqual(REVOCATION_BOUND_MS + SLACK_MS);
  });

  it('shows a plan change to the admin API and to the key on the next request', async () => {
    const [a, b] = gateways;
    const { accountId, apiKey } = await createAccount(a, 'free');
    expect((await get(b, '/v1/whoami', apiKey)).json().data.plan).toBe('free');
    const patched = await a.inject({ method: 'PATCH', url: `/v1/admin/accounts/${accountId}`, headers: bearer(ADMIN_KEY), payload: { plan: 'enterprise' } });
    expect([patched.statusCode, patched.json().data.plan]).toEqual([200, 'enterprise']);
    expect((await get(b, `/v1/admin/accounts/${accountId}`, ADMIN_KEY)).json().data).toMatchObject({ accountId, plan: 'enterprise', activeSessions: 0, messagesToday: 0 });
    await expect.poll(async () => (await get(b, '/v1/whoami', apiKey)).json().data.plan, { timeout: REVOCATION_BOUND_MS }).toBe('enterprise');
  });

  it('never shows one account to another: a non-admin key gets 403 on a foreign account', async () => {
    const [a] = gateways;
    const mine = await createAccount(a);
    const theirs = await createAccount(a);
    const response = await get(a, `/v1/admin/accounts/${theirs.accountId}`, mine.apiKey);
    expect([response.statusCode, response.json().error.code]).toEqual([403, 'FORBIDDEN']);
    expect(response.body).not.toContain(theirs.accountId);
  });

  it("lists accounts (paged) and an account's keys; creating answers the first key's id, and a key its scopes", async () => {
    const [a] = gateways;
    const created = await a.inject({ method: 'POST', url: '/v1/admin/accounts', headers: bearer(ADMIN_KEY), payload: { plan: 'basic', name: 'Listed' } });
    expect(created.statusCode).toBe(201);
    const { accountId, keyId, apiKey } = created.json().data;
    expect(keyId).toMatch(/^key_[0-9A-Z]{26}$/);
    const issued = await a.inject({ method: 'POST', url: `/v1/admin/accounts/${accountId}/keys`, headers: bearer(ADMIN_KEY), payload: { scopes: ['admin'] } });
    expect([issued.statusCode, issued.json().data.scopes]).toEqual([201, ['admin']]);

    const keys = await get(a, `/v1/admin/accounts/${accountId}/keys`, ADMIN_KEY);
    expect(keys.statusCode).toBe(200);
    expect(keys.json().data.keys.map((k: { keyId: string; scopes: string[] }) => [k.keyId, k.scopes]).sort()).toEqual([[keyId, ['api']], [issued.json().data.keyId, ['admin']]].sort());
    expect(keys.body).not.toContain(apiKey);

    const all = await get(a, '/v1/admin/accounts?limit=100', ADMIN_KEY);
    expect(all.json().data.accounts).toContainEqual(expect.objectContaining({ accountId, name: 'Listed', plan: 'basic' }));
    const total = all.json().data.total;
    const first = await get(a, '/v1/admin/accounts?limit=1&offset=0', ADMIN_KEY);
    const second = await get(a, '/v1/admin/accounts?limit=1&offset=1', ADMIN_KEY);
    expect(first.json().data).toMatchObject({ limit: 1, offset: 0, total });
    expect(first.json().data.accounts).toHaveLength(1);
    expect(second.json().data.accounts[0].accountId).not.toBe(first.json().data.accounts[0].accountId);
    expect((await get(a, '/v1/admin/accounts?limit=0', ADMIN_KEY)).statusCode).toBe(400);
    expect((await get(a, '/v1/admin/accounts', apiKey)).statusCode).toBe(403);
    const unknown = await get(a, '/v1/admin/accounts/acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F/keys', ADMIN_KEY);
    expect([unknown.statusCode, unknown.json().error.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
  });

  it('renames an account, changes its plan, or both in one PATCH; an empty PATCH is 400', async () => {
    const [a, b] = gateways;
    const { accountId } = await createAccount(a, 'free');
    const renamed = await a.inject({ method: 'PATCH', url: `/v1/admin/accounts/${accountId}`, headers: bearer(ADMIN_KEY), payload: { name: 'Renamed Ltd' } });
    expect([renamed.statusCode, renamed.json().data]).toEqual([200, expect.objectContaining({ accountId, name: 'Renamed Ltd', plan: 'free' })]);
    const both = await a.inject({ method: 'PATCH', url: `/v1/admin/accounts/${accountId}`, headers: bearer(ADMIN_KEY), payload: { name: 'Both', plan: 'basic' } });
    expect(both.json().data).toMatchObject({ name: 'Both', plan: 'basic' });
    expect((await get(b, `/v1/admin/accounts/${accountId}`, ADMIN_KEY)).json().data).toMatchObject({ name: 'Both', plan: 'basic' });
    const empty = await a.inject({ method: 'PATCH', url: `/v1/admin/accounts/${accountId}`, headers: bearer(ADMIN_KEY), payload: {} });
    expect([empty.statusCode, empty.json().error.details]).toEqual([400, [{ path: '', message: 'give plan, name or both' }]]);
  });

  it('answers 404 for unknown accounts and keys', async () => {
    const [a] = gateways;
    const account = await get(a, '/v1/admin/accounts/acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', ADMIN_KEY);
    expect([account.statusCode, account.json().error.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    const key = await a.inject({ method: 'DELETE', url: '/v1/admin/keys/key_01JD8Z5X0A1B2C3D4E5F6G7H8J', headers: bearer(ADMIN_KEY) });
    expect([key.statusCode, key.json().error.code]).toEqual([404, 'KEY_NOT_FOUND']);
  });
});

describe('closing an account, with the real quota service', () => {
  const ses = (n: number) => `ses_01JD8Z6Q9V4N2C3B5X7M1K0P${String(n).padStart(2, '0')}`;
  /** The sessions service's side of a closure: what it was asked to delete, and what it answers. */
  async function sessionsStub(deleted: string[]) {
    const asked: string[] = [];
    const subscription = await bus.subscribe(SessionsSubjects.deleteAll.subject, (message) => {
      const { accountId } = SessionsSubjects.deleteAll.request.parse(message.data);
      asked.push(accountId);
      return { accountId, deleted: asked.length === 1 ? deleted : [] };
    }, { queue: 'sessions' });
    return { asked, stop: () => subscription.unsubscribe() };
  }
  const close = (app: FastifyInstance, accountId: string) => app.inject({ method: 'DELETE', url: `/v1/admin/accounts/${accountId}`, headers: bearer(ADMIN_KEY) });

  it('revokes every key (refused on every gateway within a second), deletes its sessions, and still shows the account, closed', async () => {
    const [a, b] = gateways;
    const { accountId, apiKey } = await createAccount(a, 'basic');
    const admin = await a.inject({ method: 'POST', url: `/v1/admin/accounts/${accountId}/keys`, headers: bearer(ADMIN_KEY), payload: { scopes: ['admin'] } });
    const adminKey = admin.json().data.apiKey as string;
    for (const app of gateways) expect((await get(app, '/v1/whoami', apiKey)).statusCode).toBe(200);
    expect((await get(b, `/v1/admin/accounts/${accountId}`, adminKey)).statusCode).toBe(200);
    const sessions = await sessionsStub([ses(1), ses(2)]);
    try {
      const startedAt = Date.now();
      const closed = await close(a, accountId);
      expect([closed.statusCode, closed.json()]).toEqual([200, { success: true, data: { accountId, closedAt: expect.any(String), sessionsDeleted: 2, keysRevoked: 2 } }]);
      expect(sessions.asked).toEqual([accountId]);
      await expect.poll(async () => (await get(b, '/v1/whoami', apiKey)).statusCode, { timeout: REVOCATION_BOUND_MS, interval: 20 }).toBe(401);
      expect(Date.now() - startedAt).toBeLessThanOrEqual(REVOCATION_BOUND_MS + SLACK_MS);
      expect((await get(a, '/v1/whoami', apiKey)).statusCode).toBe(401);
      expect((await get(b, '/v1/admin/accounts', adminKey)).statusCode).toBe(401);

      const { closedAt } = closed.json().data;
      const shown = await get(b, `/v1/admin/accounts/${accountId}`, ADMIN_KEY);
      expect([shown.statusCode, shown.json().data]).toEqual([200, expect.objectContaining({ accountId, plan: 'basic', closedAt })]);
      const listed = (await get(a, '/v1/admin/accounts?limit=100', ADMIN_KEY)).json().data.accounts;
      expect(listed).toContainEqual(expect.objectContaining({ accountId, closedAt }));
      const keys = (await get(a, `/v1/admin/accounts/${accountId}/keys`, ADMIN_KEY)).json().data.keys;
      expect(keys.map((k: { revokedAt: string | null }) => k.revokedAt)).toEqual([closedAt, closedAt]);

      // Closing again: 200, the first closedAt, nothing left to do; the sessions service is asked again all the same.
      const again = await close(b, accountId);
      expect([again.statusCode, again.json().data]).toEqual([200, { accountId, closedAt, sessionsDeleted: 0, keysRevoked: 0 }]);
      expect(sessions.asked).toEqual([accountId, accountId]);
    } finally {
      await sessions.stop();
    }
  });

  it('refuses new keys and changes for a closed account with 403 FORBIDDEN naming it', async () => {
    const [a] = gateways;
    const { accountId } = await createAccount(a, 'free');
    const sessions = await sessionsStub([]);
    try {
      expect((await close(a, accountId)).statusCode).toBe(200);
    } finally {
      await sessions.stop();
    }
    const key = await a.inject({ method: 'POST', url: `/v1/admin/accounts/${accountId}/keys`, headers: bearer(ADMIN_KEY) });
    const patch = await a.inject({ method: 'PATCH', url: `/v1/admin/accounts/${accountId}`, headers: bearer(ADMIN_KEY), payload: { plan: 'premium' } });
    for (const refused of [key, patch]) {
      expect([refused.statusCode, refused.json().error.code]).toEqual([403, 'FORBIDDEN']);
      expect(refused.json().error.message).toMatch(new RegExp(`^Account ${accountId} was closed at .+: it takes no new sessions, messages, keys or changes\\.$`));
    }
  });

  it('answers 404 ACCOUNT_NOT_FOUND for an unknown account, without asking the sessions service', async () => {
    const [a] = gateways;
    const sessions = await sessionsStub([]);
    try {
      const unknown = await close(a, 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F');
      expect([unknown.statusCode, unknown.json().error.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
      expect(sessions.asked).toEqual([]);
    } finally {
      await sessions.stop();
    }
  });

  it('answers 503 while the sessions service is away, the account already closed; closing again finishes', async () => {
    const [a] = gateways;
    const { accountId, apiKey } = await createAccount(a, 'free');
    const away = await close(a, accountId);
    expect([away.statusCode, away.json().error.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
    expect((await get(a, '/v1/whoami', apiKey)).statusCode).toBe(401);
    const sessions = await sessionsStub([ses(3)]);
    try {
      const again = await close(a, accountId);
      expect([again.statusCode, again.json().data]).toEqual([200, expect.objectContaining({ accountId, sessionsDeleted: 1, keysRevoked: 0 })]);
    } finally {
      await sessions.stop();
    }
  });
});
