import { NatsBus } from '@switchboard/bus';
import { PrivateNatsServer } from '@switchboard/bus/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADMIN_KEY, FakeQuota, startGateway } from './support.js';

// Two gateway replicas as in the distributed mode: each with its own NATS connection, listening
// on a loopback port, talking HTTP; the quota stand-in on a third connection.
const REVOCATION_BOUND_MS = 1_000;
const SLACK_MS = 250; // a loaded 2-core machine: the poll's own HTTP round trips, GC pauses

let nats: PrivateNatsServer;
const buses: NatsBus[] = [];
const gateways: FastifyInstance[] = [];
const urls: string[] = [];

beforeAll(async () => {
  nats = await PrivateNatsServer.start();
  const connect = async (name: string) => {
    const bus = await NatsBus.connect({ servers: nats.url, name, logger: { error() {}, warn() {}, info() {} } });
    buses.push(bus);
    return bus;
  };
  await FakeQuota.start(await connect('quota'));
  for (const name of ['gateway-a', 'gateway-b']) {
    const app = await startGateway(await connect(name));
    urls.push(await app.listen({ host: '127.0.0.1', port: 0 }));
    gateways.push(app);
  }
});
afterAll(async () => {
  await Promise.all(gateways.map((app) => app.close()));
  await Promise.all(buses.map((bus) => bus.close()));
  await nats?.stop();
});

async function http(base: string, method: string, path: string, key: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as { data?: Record<string, string>; error?: { code: string } } };
}

it('a key revoked through one replica is refused by the other within one second (over NATS)', async () => {
  const [a = '', b = ''] = urls;
  const created = await http(a, 'POST', '/v1/admin/accounts', ADMIN_KEY, { plan: 'basic' });
  expect(created.status).toBe(201);
  const { accountId = '' } = created.body.data ?? {};
  const issued = await http(b, 'POST', `/api/v1/admin/accounts/${accountId}/keys`, ADMIN_KEY, { scopes: ['api', 'admin'] });
  const { keyId = '', apiKey = '' } = issued.body.data ?? {};
  // The new key works on both replicas (and is now in both caches).
  for (const base of urls) expect((await http(base, 'GET', `/v1/admin/accounts/${accountId}`, apiKey)).status).toBe(200);

  const startedAt = Date.now();
  expect((await http(a, 'DELETE', `/v1/admin/keys/${keyId}`, ADMIN_KEY)).status).toBe(200);
  let last = await http(b, 'GET', `/v1/admin/accounts/${accountId}`, apiKey);
  while (last.status === 200 && Date.now() - startedAt < REVOCATION_BOUND_MS + SLACK_MS) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    last = await http(b, 'GET', `/v1/admin/accounts/${accountId}`, apiKey);
  }
  expect(Date.now() - startedAt).toBeLessThanOrEqual(REVOCATION_BOUND_MS + SLACK_MS);
  expect(last.status).toBe(401);
  expect(last.headers.get('www-authenticate')).toMatch(/^Bearer/);
  expect(last.body.error?.code).toBe('UNAUTHORIZED');
});
