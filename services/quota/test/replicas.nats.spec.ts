import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NatsBus } from '@switchboard/bus';
import { PrivateNatsServer } from '@switchboard/bus/testing';
import { PublishedEvent, QuotaSubjects as Q } from '@switchboard/contracts';
import { hashApiKey, mintApiKey } from '@switchboard/service-kit';
import { call, callError, eventually, messageId, sessionId, tempDataDir } from './helpers.js';
import { spawnQuotaProcess } from './processes.js';
import type { QuotaProcess } from './processes.js';

// Two quota-service processes on one SQLite store and one (private) NATS server: the
// distributed mode with two replicas, as an operator would run it.
let nats: PrivateNatsServer;
let bus: NatsBus;
let replicas: QuotaProcess[];
const data = tempDataDir();

beforeAll(async () => {
  nats = await PrivateNatsServer.start();
  const env = { SWITCHBOARD_NATS_URL: nats.url, SWITCHBOARD_DATA_DIR: data.dir, SWITCHBOARD_DEFAULT_PLAN: 'free' };
  replicas = [spawnQuotaProcess(env), spawnQuotaProcess(env)];
  await Promise.all(replicas.map((r) => r.started));
  bus = await NatsBus.connect({ servers: nats.url, name: 'quota-test' });
}, 120_000);

afterAll(async () => {
  await bus?.close();
  await Promise.all(replicas.map((r) => r.stop()));
  await nats?.stop();
  data.remove();
});

async function openAccount(plan: 'free' | 'premium') {
  const apiKey = mintApiKey();
  return { apiKey, ...(await call(bus, Q.accounts.create, { plan, key: { keyHash: hashApiKey(apiKey), scopes: ['api'] } })) };
}

describe('two quota replicas over NATS', () => {
  it('refuses a request from another process that breaks its contract with VALIDATION_ERROR', async () => {
    const invalid = await callError(bus, Q.accounts.create, { plan: 'gold' } as never);
    expect([invalid.code, invalid.details]).toEqual(['VALIDATION_ERROR', [{ path: 'plan', message: expect.any(String) }]]);
  });

  it('bootstraps exactly one account and prints its key once, on one replica only', async () => {
    const printed = replicas.flatMap((r) => [...r.output().matchAll(/API key, shown once: (sbk_[A-Za-z0-9_-]{43})/g)].map((m) => m[1]!));
    expect(printed).toHaveLength(1);
    expect(await call(bus, Q.authenticate, { keyHash: hashApiKey(printed[0]!) })).toMatchObject({ plan: 'free', scopes: ['api'] });
    for (const replica of replicas) expect(replica.output().split('\n').filter((l) => l.startsWith('{')).join('')).not.toMatch(/sbk_/);
  });

  it('grants exactly the 7 daily units left to 30 simultaneous sends', async () => {
    const { accountId } = await openAccount('free');
    for (let i = 0; i < 43; i++) await call(bus, Q.reserveDaily, { accountId, messageId: messageId(i) });
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => call(bus, Q.reserveDaily, { accountId, messageId: messageId(100 + i) })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(7);
    const codes = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as { code: string }).code] : []));
    expect(codes).toEqual(Array(23).fill('DAILY_MESSAGE_LIMIT_REACHED'));
    // Both replicas read the same counter: whichever answers, the day is used up.
    for (let i = 0; i < 4; i++) {
      await expect(call(bus, Q.reserveDaily, { accountId, messageId: messageId(200 + i) })).rejects.toMatchObject({ details: { limit: 50, used: 50 } });
    }
  });

  it('grants exactly the 7 session slots left to 30 simultaneous creations', async () => {
    const { accountId } = await openAccount('premium');
    for (let i = 0; i < 13; i++) await call(bus, Q.reserveSession, { accountId, sessionId: sessionId(i) });
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, (_, i) => call(bus, Q.reserveSession, { accountId, sessionId: sessionId(100 + i) })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(7);
    const codes = results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as { code: string }).code] : []));
    expect(codes).toEqual(Array(23).fill('SESSION_LIMIT_REACHED'));
  });

  it('accepts a new key on every replica at once (read-your-writes across replicas)', async () => {
    for (let round = 0; round < 3; round++) {
      const account = await openAccount('free');
      const answers = await Promise.all(Array.from({ length: 8 }, () => call(bus, Q.authenticate, { keyHash: hashApiKey(account.apiKey) })));
      expect(new Set(answers.map((a) => a.accountId))).toEqual(new Set([account.accountId]));
      expect((await call(bus, Q.keys.list, { accountId: account.accountId })).keys).toHaveLength(1);
    }
  });

  it('publishes a revocation once, though both replicas see it', async () => {
    const received: PublishedEvent[] = [];
    await bus.subscribe('sb.v1.evt.account.ApiKeyRevoked', (m) => void received.push(PublishedEvent.parse(m.data)));
    const account = await openAccount('free');
    const revoked = await call(bus, Q.keys.revoke, { keyId: account.keyId! });
    const event = await eventually(() => received.find((e) => e.data && (e.data as { keyId: string }).keyId === revoked.keyId));
    expect(event.metadata.accountId).toBe(account.accountId);
    // Reads catch up with the store first: whichever replica answers, the key is refused at once.
    const answers = await Promise.allSettled(Array.from({ length: 8 }, () => call(bus, Q.authenticate, { keyHash: hashApiKey(account.apiKey) })));
    expect(answers.map((a) => (a.status === 'rejected' ? (a.reason as { code: string }).code : 'accepted'))).toEqual(Array(8).fill('UNAUTHORIZED'));
    // Give a duplicate every chance to arrive: the other replica would publish within its poll.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(received.filter((e) => e.eventId === event.eventId)).toHaveLength(1);
  });
});
