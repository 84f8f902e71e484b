import { BACKEND_SERVICES, ReadySubjects, ReadyzResponse } from '@switchboard/contracts';
import type { ReadyReply } from '@switchboard/contracts';
import { InProcessBus } from '@switchboard/bus';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGateway } from './support.js';

let bus: InProcessBus;
let app: FastifyInstance;

beforeEach(async () => {
  bus = new InProcessBus({ logger: { error() {}, warn() {}, info() {} } });
  app = await startGateway(bus);
});
afterEach(async () => {
  await app.close();
  await bus.close();
});

const answerReady = (service: (typeof BACKEND_SERVICES)[number], reply: ReadyReply) =>
  bus.subscribe(ReadySubjects[service].subject, () => reply, { queue: `sb.v1.${service}` });

describe('probes', () => {
  it('/healthz answers 200 without a key while the process runs', async () => {
    const response = await app.inject({ method: 'GET', url: '/healthz' });
    expect([response.statusCode, response.json()]).toEqual([200, { status: 'ok' }]);
  });

  it('/readyz is 503 and names every service that does not answer', async () => {
    await answerReady('quota', { service: 'quota', ready: true, details: {} });
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    const body = ReadyzResponse.parse(response.json());
    expect(body.status).toBe('not_ready');
    expect(body.checks).toEqual({
      bus: { ok: true },
      sessions: { ok: false, detail: 'no sessions service answers on the bus' },
      messaging: { ok: false, detail: 'no messaging service answers on the bus' },
      quota: { ok: true },
      events: { ok: false, detail: 'no events service answers on the bus' },
    });
  });

  it('/readyz passes on what a service says is not ready', async () => {
    await answerReady('quota', { service: 'quota', ready: true, details: {} });
    await answerReady('messaging', { service: 'messaging', ready: true, details: {} });
    await answerReady('sessions', { service: 'sessions', ready: false, details: { readModels: { ok: false, detail: 'catching up: 120 events behind' }, eventStore: { ok: true } } });
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json().checks.sessions).toEqual({ ok: false, detail: 'not ready (readModels: catching up: 120 events behind)' });
  });

  it('/readyz is 200 once the bus is up and every service is ready', async () => {
    for (const service of BACKEND_SERVICES) await answerReady(service, { service, ready: true, details: { eventStore: { ok: true } } });
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ status: 'ready', checks: { bus: { ok: true }, sessions: { ok: true }, messaging: { ok: true }, quota: { ok: true }, events: { ok: true } } });
  });

  it('/readyz is 503 when the bus is gone', async () => {
    await bus.close();
    const response = await app.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json().checks.bus).toEqual({ ok: false, detail: 'not connected' });
  });
});
