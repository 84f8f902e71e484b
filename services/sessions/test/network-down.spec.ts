import { Agent } from 'node:https';
import type { LookupFunction } from 'node:net';
import { createServer, type Server } from 'node:net';
import { closedLoopbackPort } from '@switchboard/bus/testing';
import { ReadySubjects, SessionsSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from './harness.js';

// The real network's mode (`whatsapp`) with no route to it. Nothing leaves loopback: the DNS case
// replaces the lookup itself (it fails before any query is sent), the TCP case points the driver
// at a loopback port nobody listens on, the TLS and refusal cases at loopback servers.

const FIRST_QR_TIMEOUT_MS = 4_000;

/** An agent whose every lookup fails as a resolver with no answer would; counts its calls. */
function failingResolver(): { agent: Agent; lookups: string[] } {
  const lookups: string[] = [];
  const lookup = ((hostname: string, _options: unknown, callback: (error: NodeJS.ErrnoException) => void) => {
    lookups.push(hostname);
    process.nextTick(() => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname })));
  }) as unknown as LookupFunction;
  return { agent: new Agent({ lookup }), lookups };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

describe('creating a session when the chat network cannot be resolved (dns)', () => {
  let h: Harness;
  const resolver = failingResolver();
  const logs: Record<string, unknown>[] = [];
  beforeAll(async () => {
    h = await Harness.start({
      firstQrTimeoutMs: FIRST_QR_TIMEOUT_MS,
      onLog: (line) => logs.push(line),
      chatNetwork: () => ({ network: { kind: 'whatsapp', url: 'wss://web.whatsapp.com/ws/chat', agent: resolver.agent } }),
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('answers CHAT_NETWORK_ERROR at once with cause dns and the host, keeps no session, frees the slot', async () => {
    const accountId = await h.quota.account('free');
    const started = Date.now();
    const failure = await h.call(SessionsSubjects.create, { accountId }).catch((error: unknown) => error);
    expect(Date.now() - started).toBeLessThan(FIRST_QR_TIMEOUT_MS);
    expect(resolver.lookups).toContain('web.whatsapp.com');
    expect(failure).toMatchObject({
      code: 'CHAT_NETWORK_ERROR',
      message: expect.stringContaining('could not be reached (dns: web.whatsapp.com could not be resolved (ENOTFOUND))'),
      details: { cause: 'dns', host: 'web.whatsapp.com' },
    });
    const listed = await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 });
    expect(listed).toMatchObject({ sessions: [], total: 0 });
    expect(await h.quota.activeSessions(accountId)).toBe(0);
    const warnings = logs.filter((line) => line['msg'] === 'no pairing code from the chat network');
    expect(warnings).toEqual([expect.objectContaining({ level: 'warn', cause: 'dns', host: 'web.whatsapp.com' })]);
  });

  it('says on /readyz that the network is unreachable, without failing readiness', async () => {
    const reply = await h.call(ReadySubjects.sessions, {});
    expect(reply.ready).toBe(true);
    expect(reply.details['chatNetwork']).toEqual({ ok: false, advisory: true, detail: expect.stringMatching(/^unreachable at .*: dns: web\.whatsapp\.com could not be resolved/) });
  });
});

describe('creating a session when no TCP connection can be made (tcp)', () => {
  let h: Harness;
  const logs: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const port = await closedLoopbackPort();
    h = await Harness.start({
      firstQrTimeoutMs: FIRST_QR_TIMEOUT_MS,
      onLog: (line) => logs.push(line),
      chatNetwork: () => ({ network: { kind: 'whatsapp', url: `ws://127.0.0.1:${port}/ws/chat` }, reconnect: { initialDelayMs: 200, maxDelayMs: 200 } }),
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('retries until the deadline, then answers with cause tcp; the retries are logged once, with the cause', async () => {
    const accountId = await h.quota.account('free');
    const failure = await h.call(SessionsSubjects.create, { accountId }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'CHAT_NETWORK_ERROR', details: { cause: 'tcp', host: '127.0.0.1' } });
    expect((await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 })).total).toBe(0);
    const retries = logs.filter((line) => typeof line['msg'] === 'string' && line['msg'].startsWith('cannot reach the chat network'));
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ cause: 'tcp', msg: expect.stringContaining('ECONNREFUSED') });
    expect(logs.filter((line) => line['msg'] === 'connection dropped; reconnecting')).toEqual([]);
  });
});

describe('creating a session when the network takes the connection and never answers (timeout)', () => {
  const CONNECT_TIMEOUT_MS = 1_000;
  /** A TCP connection the silent server took: when, and when the client closed it. */
  type Accepted = { openedAt: number; closedAt?: number };
  const accepted: Accepted[] = [];
  const silent = createServer((socket) => {
    const entry: Accepted = { openedAt: performance.now() };
    accepted.push(entry);
    socket.on('error', () => undefined);
    socket.on('close', () => void (entry.closedAt = performance.now()));
    // Reads (and drops) what comes, so that the client's close is seen; answers nothing.
    socket.resume();
  });
  let h: Harness;
  beforeAll(async () => {
    const url = `ws://127.0.0.1:${await listen(silent)}/ws/chat`;
    h = await Harness.start({
      firstQrTimeoutMs: FIRST_QR_TIMEOUT_MS,
      chatNetwork: () => ({ network: { kind: 'whatsapp', url }, connectTimeoutMs: CONNECT_TIMEOUT_MS, reconnect: { initialDelayMs: 100, maxDelayMs: 100 } }),
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    silent.close();
  });

  it('ends each attempt at the connect timeout and tries again, then answers with cause timeout', async () => {
    const accountId = await h.quota.account('free');
    const failure = await h.call(SessionsSubjects.create, { accountId }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'CHAT_NETWORK_ERROR', details: { cause: 'timeout' } });
    expect((await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 })).total).toBe(0);
    // Not one connection held for the whole wait: each was closed by us once the timeout had
    // passed (counted from just before the TCP connect, looked at once a second), and the next one
    // made after it.
    expect(accepted.length, JSON.stringify(accepted)).toBeGreaterThanOrEqual(2);
    const [first, second] = accepted as [Required<Accepted>, Accepted];
    expect(first.closedAt - first.openedAt, JSON.stringify(accepted)).toBeGreaterThan(CONNECT_TIMEOUT_MS - 200);
    expect(first.closedAt - first.openedAt, JSON.stringify(accepted)).toBeLessThan(CONNECT_TIMEOUT_MS + 2_500);
    expect(second.openedAt).toBeGreaterThan(first.closedAt - 50);
  });
});

describe('a network that answers but not as the chat network (tls, rejected)', () => {
  const servers: Server[] = [];
  afterAll(() => {
    for (const server of servers) server.close();
  });

  it('names a failed TLS handshake tls and an HTTP refusal of the upgrade rejected', async () => {
    // Speaks plain text where TLS is expected.
    const notTls = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'));
    // Refuses the WebSocket upgrade, as a blocking proxy would.
    const refusing = createServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n')));
    servers.push(notTls, refusing);
    const cases = [
      { url: `wss://127.0.0.1:${await listen(notTls)}/ws/chat`, cause: 'tls' },
      { url: `ws://127.0.0.1:${await listen(refusing)}/ws/chat`, cause: 'rejected' },
    ];
    for (const { url, cause } of cases) {
      const h = await Harness.start({ firstQrTimeoutMs: FIRST_QR_TIMEOUT_MS, chatNetwork: () => ({ network: { kind: 'whatsapp', url } }) });
      try {
        const accountId = await h.quota.account('free');
        const failure = await h.call(SessionsSubjects.create, { accountId }).catch((error: unknown) => error);
        expect(failure, url).toMatchObject({ code: 'CHAT_NETWORK_ERROR', details: { cause } });
      } finally {
        await h.close();
      }
    }
  }, 60_000);
});
