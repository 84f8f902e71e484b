import { success, successEnvelope } from '@switchboard/contracts';
import type { EndpointContract } from '@switchboard/contracts';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoute } from '../src/index.js';
import { ADMIN_KEY, bearer, createAccount, quotaBus, startGateway } from './support.js';
import type { InProcessBus } from '@switchboard/bus';
import type { FakeQuota } from './support.js';

const PING = { method: 'GET', path: '/v1/ping', status: 200, response: successEnvelope(z.object({ pong: z.boolean() })) } as const satisfies EndpointContract;
const ping = (app: FastifyInstance) => defineRoute(app, PING, async () => success({ pong: true }));

/** The bound of api-decisions.md, plus slack for a loaded 2-core machine (the poll itself, GC). */
const REVOCATION_BOUND_MS = 1_000;
const SLACK_MS = 250;

let bus: InProcessBus;
let quota: FakeQuota;
let gateways: FastifyInstance[];

beforeEach(async () => {
  ({ bus, quota } = await quotaBus());
  gateways = [await startGateway(bus, { routes: [ping] }), await startGateway(bus, { routes: [ping] })];
});
afterEach(async () => {
  await Promise.all(gateways.map((app) => app.close()));
  await bus.close();
});

async function pollUntilRefused(app: FastifyInstance, apiKey: string, startedAt: number): Promise<number> {
  for (;;) {
    const response = await app.inject({ method: 'GET', url: '/v1/ping', headers: bearer(apiKey) });
    const elapsed = Date.now() - startedAt;
    if (response.statusCode === 401) return elapsed;
    expect(response.statusCode).toBe(200);
    if (elapsed > REVOCATION_BOUND_MS + SLACK_MS) return elapsed;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

it('refuses a revoked key within one second on both gateway replicas', async () => {
  const [first, second] = gateways as [FastifyInstance, FastifyInstance];
  const { accountId, apiKey } = await createAccount(first);
  const issued = await first.inject({ method: 'POST', url: `/v1/admin/accounts/${accountId}/keys`, headers: bearer(ADMIN_KEY) });
  const { keyId, apiKey: secondKey } = issued.json().data;
  // Both replicas have the key cached before the revocation.
  for (const app of gateways) expect((await app.inject({ method: 'GET', url: '/v1/ping', headers: bearer(secondKey) })).statusCode).toBe(200);

  const startedAt = Date.now();
  const revoked = await first.inject({ method: 'DELETE', url: `/v1/admin/keys/${keyId}`, headers: bearer(ADMIN_KEY) });
  expect(revoked.json()).toEqual({ success: true, message: 'API key revoked' });

  const [onFirst, onSecond] = await Promise.all([pollUntilRefused(first, secondKey, startedAt), pollUntilRefused(second, secondKey, startedAt)]);
  expect(onFirst).toBeLessThanOrEqual(REVOCATION_BOUND_MS + SLACK_MS);
  expect(onSecond).toBeLessThanOrEqual(REVOCATION_BOUND_MS + SLACK_MS);
  const refused = await second.inject({ method: 'GET', url: '/v1/ping', headers: bearer(secondKey) });
  expect(refused.statusCode).toBe(401);
  // The account's other key is untouched.
  expect((await second.inject({ method: 'GET', url: '/v1/ping', headers: bearer(apiKey) })).statusCode).toBe(200);
});

it('refuses a revoked key within one second even when the revocation event is lost (cache TTL)', async () => {
  const second = gateways[1] as FastifyInstance;
  const { accountId, apiKey } = await createAccount(second);
  expect((await second.inject({ method: 'GET', url: '/v1/ping', headers: bearer(apiKey) })).statusCode).toBe(200);
  // Revoked behind the gateways' backs: no ApiKeyRevoked fact is published.
  const startedAt = Date.now();
  for (const key of quota.keys.values()) if (key.accountId === accountId) key.revoked = true;
  expect(await pollUntilRefused(second, apiKey, startedAt)).toBeLessThanOrEqual(REVOCATION_BOUND_MS + SLACK_MS);
  expect((await second.inject({ method: 'GET', url: '/v1/ping', headers: bearer(apiKey) })).statusCode).toBe(401);
});
