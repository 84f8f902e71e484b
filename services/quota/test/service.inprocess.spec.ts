import { afterEach, describe, expect, it } from 'vitest';
import { InProcessBus } from '@switchboard/bus';
import { MintedApiKey, PublishedEvent, QuotaSubjects as Q, ReadySubjects } from '@switchboard/contracts';
import { hashApiKey, mintApiKey } from '@switchboard/service-kit';
import { openQuotaEngine } from '../src/engine.js';
import { startQuotaService } from '../src/service.js';
import type { RunningQuotaService } from '../src/service.js';
import { TestClock, call, callError, eventually, messageId, sessionId, silentLogger, tempDataDir } from './helpers.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function start(options: { dir?: string; bus?: InProcessBus; clock?: TestClock; env?: Partial<{ bootstrapApiKey: string; adminApiKey: string }> } = {}) {
  const data = options.dir ? { dir: options.dir, remove: () => undefined } : tempDataDir();
  const bus = options.bus ?? new InProcessBus();
  const config = { dataDir: data.dir, eventStoreUrl: undefined, defaultPlan: 'enterprise' as const, ...options.env };
  const service: RunningQuotaService = await startQuotaService({ bus, config, logger: silentLogger, clock: options.clock });
  cleanups.push(data.remove, () => bus.close(), () => service.close());
  return { bus, service, dir: data.dir };
}

async function openAccount(bus: InProcessBus, plan: 'free' | 'basic' | 'premium' | 'enterprise') {
  const apiKey = mintApiKey();
  const created = await call(bus, Q.accounts.create, { plan, name: `${plan} account`, key: { keyHash: hashApiKey(apiKey), scopes: ['api'] } });
  return { ...created, apiKey };
}

describe('readiness', () => {
  it('answers sb.v1.quota.ready once its read models are caught up, as the gateway\'s /readyz asks', async () => {
    const { bus } = await start();
    expect(await call(bus, ReadySubjects.quota, {})).toEqual({
      service: 'quota', ready: true, details: { bus: { ok: true }, readModels: { ok: true } },
    });
  });
});

describe('bootstrap on first start', () => {
  it('opens one enterprise account and returns its freshly minted key once', async () => {
    const { bus, service, dir } = await start();
    const bootstrap = service.bootstrap!;
    expect(MintedApiKey.safeParse(bootstrap.apiKey).success).toBe(true);
    expect(bootstrap.plan).toBe('enterprise');
    const auth = await call(bus, Q.authenticate, { keyHash: hashApiKey(bootstrap.apiKey!) });
    expect(auth).toEqual({ accountId: bootstrap.accountId, keyId: bootstrap.keyId, scopes: ['api'], plan: 'enterprise' });
    await service.close();
    const again = await start({ dir });
    expect(again.service.bootstrap).toBeUndefined();
    expect((await call(again.bus, Q.accounts.list, { limit: 100, offset: 0 })).total).toBe(1);
  });

  it('uses exactly SWITCHBOARD_BOOTSTRAP_API_KEY when set, and never returns it for printing', async () => {
    const key = 'operator-chosen-bootstrap-key-0001';
    const { bus, service } = await start({ env: { bootstrapApiKey: key } });
    expect(service.bootstrap?.apiKey).toBeNull();
    expect((await call(bus, Q.authenticate, { keyHash: hashApiKey(key) })).accountId).toBe(service.bootstrap?.accountId);
  });

  it('refuses a short bootstrap key with a message naming the variable', async () => {
    const data = tempDataDir();
    cleanups.push(data.remove);
    const config = { dataDir: data.dir, eventStoreUrl: undefined, defaultPlan: 'free' as const, bootstrapApiKey: 'tooshort' };
    await expect(startQuotaService({ bus: new InProcessBus(), config, logger: silentLogger })).rejects.toThrow(
      'SWITCHBOARD_BOOTSTRAP_API_KEY is not a usable API key: API key is too short',
    );
  });

  it('registers SWITCHBOARD_ADMIN_API_KEY with the admin scope, and revokes it when the variable changes', async () => {
    const first = await start({ env: { adminApiKey: 'admin-key-from-a-kubernetes-secret' } });
    expect((await call(first.bus, Q.authenticate, { keyHash: hashApiKey('admin-key-from-a-kubernetes-secret') })).scopes).toEqual(['admin']);
    await first.service.close();
    const again = await start({ dir: first.dir, env: { adminApiKey: 'admin-key-from-a-kubernetes-secret' } });
    expect((await call(again.bus, Q.keys.list, { accountId: first.service.bootstrap!.accountId })).keys).toHaveLength(2);
    await again.service.close();
    const rotated = await start({ dir: first.dir, env: { adminApiKey: 'rotated-admin-key-0000000000' } });
    expect((await callError(rotated.bus, Q.authenticate, { keyHash: hashApiKey('admin-key-from-a-kubernetes-secret') })).code).toBe('UNAUTHORIZED');
    expect((await call(rotated.bus, Q.authenticate, { keyHash: hashApiKey('rotated-admin-key-0000000000') })).scopes).toEqual(['admin']);
  });
});

describe('accounts and keys over the bus', () => {
  it('creates, reads, lists and re-plans accounts', async () => {
    const { bus } = await start();
    const acme = await openAccount(bus, 'free');
    expect(acme).toMatchObject({ name: 'free account', plan: 'free' });
    expect(acme.keyId).toMatch(/^key_/);
    expect(await call(bus, Q.accounts.get, { accountId: acme.accountId })).toEqual({
      accountId: acme.accountId, name: 'free account', plan: 'free', activeSessions: 0, messagesToday: 0, closedAt: null,
    });
    const changed = await call(bus, Q.accounts.update, { accountId: acme.accountId, plan: 'premium' });
    expect(changed.plan).toBe('premium');
    expect((await call(bus, Q.authenticate, { keyHash: hashApiKey(acme.apiKey) })).plan).toBe('premium');
    const list = await call(bus, Q.accounts.list, { limit: 1, offset: 1 });
    expect(list.total).toBe(2);
    expect(list.accounts.map((a) => a.accountId)).toEqual([acme.accountId]);
  });

  it('issues, lists and revokes keys; a revoked key is UNAUTHORIZED at once', async () => {
    const { bus } = await start();
    const acme = await openAccount(bus, 'basic');
    const second = mintApiKey();
    const issued = await call(bus, Q.keys.create, { accountId: acme.accountId, keyHash: hashApiKey(second), scopes: ['api', 'admin'] });
    expect(issued).toMatchObject({ accountId: acme.accountId, scopes: ['api', 'admin'], revokedAt: null });
    const revoked = await call(bus, Q.keys.revoke, { keyId: issued.keyId });
    expect(revoked.revokedAt).toEqual(expect.any(String));
    expect(await call(bus, Q.keys.revoke, { keyId: issued.keyId })).toEqual(revoked);
    const denied = await callError(bus, Q.authenticate, { keyHash: hashApiKey(second) });
    expect([denied.code, denied.message]).toEqual(['UNAUTHORIZED', 'A valid API key is required: send "Authorization: Bearer <API_KEY>".']);
    expect((await call(bus, Q.authenticate, { keyHash: hashApiKey(acme.apiKey) })).keyId).toBe(acme.keyId);
    const keys = await call(bus, Q.keys.list, { accountId: acme.accountId });
    expect(keys.keys.map((k) => [k.keyId, k.revokedAt === null])).toEqual([[acme.keyId, true], [issued.keyId, false]]);
  });

  it('answers the api-decisions error codes', async () => {
    const { bus } = await start();
    const ghost = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
    expect((await callError(bus, Q.accounts.get, { accountId: ghost })).code).toBe('ACCOUNT_NOT_FOUND');
    expect((await callError(bus, Q.reserveDaily, { accountId: ghost, messageId: messageId(1) })).code).toBe('ACCOUNT_NOT_FOUND');
    expect((await callError(bus, Q.keys.revoke, { keyId: 'key_01JD8Z5X0A1B2C3D4E5F6G7H8J' })).code).toBe('KEY_NOT_FOUND');
    expect((await callError(bus, Q.authenticate, { keyHash: 'f'.repeat(64) })).code).toBe('UNAUTHORIZED');
    // A request that breaks its contract can only come from another process: see replicas.nats.spec.ts.
  });
});

describe('closing an account', () => {
  it('revokes its keys and records the closure in one append; reads still answer, showing it closed', async () => {
    const { bus } = await start();
    const acme = await openAccount(bus, 'basic');
    const admin = await call(bus, Q.keys.create, { accountId: acme.accountId, keyHash: hashApiKey(mintApiKey()), scopes: ['admin'] });
    await call(bus, Q.reserveSession, { accountId: acme.accountId, sessionId: sessionId(1) });
    await call(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(1) });
    const closed = await call(bus, Q.accounts.close, { accountId: acme.accountId });
    expect(closed).toEqual({ accountId: acme.accountId, closedAt: expect.any(String), keysRevoked: [acme.keyId, admin.keyId] });
    expect((await callError(bus, Q.authenticate, { keyHash: hashApiKey(acme.apiKey) })).code).toBe('UNAUTHORIZED');
    const keys = (await call(bus, Q.keys.list, { accountId: acme.accountId })).keys;
    expect(keys.map((k) => k.revokedAt)).toEqual([closed.closedAt, closed.closedAt]);
    // History stays: the account, its plan, its slot still held (the sessions service frees it) and today's count.
    const view = await call(bus, Q.accounts.get, { accountId: acme.accountId });
    expect(view).toEqual({ accountId: acme.accountId, name: 'basic account', plan: 'basic', activeSessions: 1, messagesToday: 1, closedAt: closed.closedAt });
    expect((await call(bus, Q.accounts.list, { limit: 100, offset: 0 })).accounts).toContainEqual(view);
  });

  it('closing again answers the first closedAt and revokes nothing; an unknown account is ACCOUNT_NOT_FOUND', async () => {
    const { bus } = await start();
    const acme = await openAccount(bus, 'free');
    const first = await call(bus, Q.accounts.close, { accountId: acme.accountId });
    expect(await call(bus, Q.accounts.close, { accountId: acme.accountId })).toEqual({ ...first, keysRevoked: [] });
    expect((await callError(bus, Q.accounts.close, { accountId: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F' })).code).toBe('ACCOUNT_NOT_FOUND');
  });

  it('refuses new sessions, messages, keys and changes with FORBIDDEN; frees slots, refunds units and revokes as before', async () => {
    const { bus } = await start();
    const acme = await openAccount(bus, 'basic');
    await call(bus, Q.reserveSession, { accountId: acme.accountId, sessionId: sessionId(1) });
    const unit = await call(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(1) });
    const { closedAt } = await call(bus, Q.accounts.close, { accountId: acme.accountId });
    const refusals = [
      await callError(bus, Q.reserveSession, { accountId: acme.accountId, sessionId: sessionId(2) }),
      await callError(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(2) }),
      await callError(bus, Q.keys.create, { accountId: acme.accountId, keyHash: hashApiKey(mintApiKey()), scopes: ['api'] }),
      await callError(bus, Q.accounts.update, { accountId: acme.accountId, plan: 'premium' }),
    ];
    for (const refused of refusals) {
      expect(refused).toMatchObject({ code: 'FORBIDDEN', details: { accountId: acme.accountId, closedAt } });
      expect(refused.message).toBe(`Account ${acme.accountId} was closed at ${closedAt}: it takes no new sessions, messages, keys or changes.`);
    }
    expect(await call(bus, Q.releaseSession, { accountId: acme.accountId, sessionId: sessionId(1) })).toEqual({ released: true, limit: 5, used: 0 });
    expect(await call(bus, Q.refundDaily, { accountId: acme.accountId, messageId: messageId(1), day: unit.day })).toEqual({ refunded: true });
    expect((await call(bus, Q.keys.revoke, { keyId: acme.keyId! })).revokedAt).toBe(closedAt);
  });

  it('publishes the revocations, then AccountClosed; also when the CLI closed it on the store', async () => {
    const bus = new InProcessBus();
    const { dir } = await start({ bus });
    const received: PublishedEvent[] = [];
    await bus.subscribe('sb.v1.evt.account.>', (message) => void received.push(PublishedEvent.parse(message.data)));
    const acme = await openAccount(bus, 'free');
    const cli = await openQuotaEngine({ config: { dataDir: dir } });
    await cli.api.closeAccount({ accountId: acme.accountId });
    await cli.close();
    await eventually(() => received.find((e) => e.type === 'AccountClosed'));
    expect(received.map((e) => e.type)).toEqual(['AccountOpened', 'ApiKeyIssued', 'ApiKeyRevoked', 'AccountClosed']);
    expect(received.at(-1)).toMatchObject({ stream: `account-${acme.accountId}`, data: { accountId: acme.accountId, closedAt: expect.any(String) } });
  });

  it('still starts on a store whose admin-key account was closed; the variable is not registered on the closed account', async () => {
    const first = await start({ env: { adminApiKey: 'admin-key-from-a-kubernetes-secret' } });
    await call(first.bus, Q.accounts.close, { accountId: first.service.bootstrap!.accountId });
    await first.service.close();
    const again = await start({ dir: first.dir, env: { adminApiKey: 'rotated-admin-key-0000000000' } });
    expect((await callError(again.bus, Q.authenticate, { keyHash: hashApiKey('rotated-admin-key-0000000000') })).code).toBe('UNAUTHORIZED');
  });
});

describe('limits', () => {
  it('shows each unit to the next read at once: reads catch up with the store, a reservation does not wait for the read model', async () => {
    const { bus } = await start();
    const acme = await openAccount(bus, 'basic');
    for (let i = 1; i <= 3; i++) {
      await call(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(i) });
      expect((await call(bus, Q.accounts.get, { accountId: acme.accountId })).messagesToday).toBe(i);
    }
  });

  it('grants exactly the 7 units left to 30 simultaneous sends', async () => {
    const { bus } = await start();
    const acme = await openAccount(bus, 'free');
    for (let i = 0; i < 43; i++) await call(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(i) });
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => call(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(100 + i) })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(7);
    const refusals = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as { code: string; details: unknown }] : []));
    expect(refusals).toHaveLength(23);
    expect(refusals[0]).toMatchObject({ code: 'DAILY_MESSAGE_LIMIT_REACHED', details: { limit: 50, used: 50 } });
    expect((await call(bus, Q.accounts.get, { accountId: acme.accountId })).messagesToday).toBe(50);
  });

  it('grants exactly the 7 session slots left to 30 simultaneous creations', async () => {
    const { bus } = await start();
    const acme = await openAccount(bus, 'premium');
    for (let i = 0; i < 13; i++) await call(bus, Q.reserveSession, { accountId: acme.accountId, sessionId: sessionId(i) });
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => call(bus, Q.reserveSession, { accountId: acme.accountId, sessionId: sessionId(100 + i) })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(7);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ code: 'SESSION_LIMIT_REACHED', details: { limit: 20, used: 20 } });
    expect((await call(bus, Q.accounts.get, { accountId: acme.accountId })).activeSessions).toBe(20);
    expect(await call(bus, Q.releaseSession, { accountId: acme.accountId, sessionId: sessionId(0) })).toEqual({ released: true, limit: 20, used: 19 });
    expect(await call(bus, Q.releaseSession, { accountId: acme.accountId, sessionId: sessionId(0) })).toEqual({ released: false, limit: 20, used: 19 });
  });

  it('rolls the daily counter over at 00:00 UTC and refunds to the right day', async () => {
    const clock = new TestClock(new Date('2026-11-21T23:59:59.000Z'));
    const { bus } = await start({ clock });
    const acme = await openAccount(bus, 'free');
    for (let i = 0; i < 50; i++) await call(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(i) });
    const full = await callError(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(50) });
    expect(full.details).toEqual({ limit: 50, used: 50, resetsAt: '2026-11-22T00:00:00.000Z' });
    clock.set('2026-11-22T00:00:00.000Z');
    expect(await call(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(50) })).toEqual({
      day: '2026-11-22', limit: 50, used: 1, remaining: 49, resetsAt: '2026-11-23T00:00:00.000Z',
    });
    expect(await call(bus, Q.refundDaily, { accountId: acme.accountId, messageId: messageId(3), day: '2026-11-21' })).toEqual({ refunded: true });
    expect(await call(bus, Q.refundDaily, { accountId: acme.accountId, messageId: messageId(3), day: '2026-11-21' })).toEqual({ refunded: false });
    expect((await call(bus, Q.accounts.get, { accountId: acme.accountId })).messagesToday).toBe(1);
  });

  it('applies a plan change to the next request; enterprise is unlimited', async () => {
    const { bus } = await start();
    const acme = await openAccount(bus, 'free');
    for (let i = 0; i < 50; i++) await call(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(i) });
    await call(bus, Q.accounts.update, { accountId: acme.accountId, plan: 'basic' });
    expect(await call(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(50) })).toMatchObject({ limit: 1000, used: 51, remaining: 949 });
    await call(bus, Q.accounts.update, { accountId: acme.accountId, plan: 'enterprise' });
    expect(await call(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(51) })).toMatchObject({ limit: null, used: 52, remaining: null });
    expect(await call(bus, Q.reserveSession, { accountId: acme.accountId, sessionId: sessionId(1) })).toEqual({ limit: null, used: 1 });
    await call(bus, Q.accounts.update, { accountId: acme.accountId, plan: 'free' });
    expect((await callError(bus, Q.reserveDaily, { accountId: acme.accountId, messageId: messageId(52) })).details).toMatchObject({ limit: 50, used: 52 });
  });
});

describe('published facts', () => {
  it('publishes PlanChanged and ApiKeyRevoked, including those written by another process on the store, once each', async () => {
    const bus = new InProcessBus();
    const { dir } = await start({ bus });
    await start({ dir, bus }); // a second replica on the same store and bus
    const received: PublishedEvent[] = [];
    await bus.subscribe('sb.v1.evt.account.>', (message) => void received.push(PublishedEvent.parse(message.data)));
    const acme = await openAccount(bus, 'free');
    await call(bus, Q.accounts.update, { accountId: acme.accountId, plan: 'basic' });
    // The CLI's embedded mode: the domain on the same SQLite store, no bus at all.
    const cli = await openQuotaEngine({ config: { dataDir: dir } });
    await cli.api.revokeKey({ keyId: acme.keyId! });
    await cli.close();
    const revoked = await eventually(() => received.find((e) => e.type === 'ApiKeyRevoked'));
    expect(revoked).toMatchObject({ stream: `account-${acme.accountId}`, data: { keyId: acme.keyId }, metadata: { accountId: acme.accountId } });
    expect(received.map((e) => e.type)).toEqual(['AccountOpened', 'ApiKeyIssued', 'PlanChanged', 'ApiKeyRevoked']);
    expect(new Set(received.map((e) => e.eventId)).size).toBe(received.length);
    // Key hashes are credentials of the authenticate call: never on the bus.
    expect(JSON.stringify(received)).not.toContain('keyHash');
    expect(received.find((e) => e.type === 'ApiKeyIssued')?.data).toMatchObject({ keyId: acme.keyId });
  });

  it('after a restart publishes what was written while it was down, and nothing older', async () => {
    const first = await start();
    const acme = await openAccount(first.bus, 'free');
    await first.service.close();
    const cli = await openQuotaEngine({ config: { dataDir: first.dir } });
    await cli.api.revokeKey({ keyId: acme.keyId! });
    await cli.close();
    const bus = new InProcessBus();
    const received: PublishedEvent[] = [];
    await bus.subscribe('sb.v1.evt.>', (message) => void received.push(PublishedEvent.parse(message.data)));
    await start({ dir: first.dir, bus });
    await eventually(() => (received.length > 0 ? true : undefined));
    await call(bus, Q.accounts.update, { accountId: acme.accountId, plan: 'basic' });
    await eventually(() => received.find((e) => e.type === 'PlanChanged'));
    expect(received.map((e) => e.type)).toEqual(['ApiKeyRevoked', 'PlanChanged']);
  });
});
