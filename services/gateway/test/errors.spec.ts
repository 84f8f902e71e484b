import { ErrorEnvelope, success, successEnvelope } from '@switchboard/contracts';
import type { EndpointContract } from '@switchboard/contracts';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BODY_LIMIT_BYTES, defineRoute } from '../src/index.js';
import { ADMIN_KEY, bearer, quotaBus, startGateway, TRACE_ID } from './support.js';
import type { InProcessBus } from '@switchboard/bus';

const BOOM = { method: 'GET', path: '/v1/boom', status: 200, response: successEnvelope(z.object({})) } as const satisfies EndpointContract;
const boom = (app: FastifyInstance) =>
  defineRoute(app, BOOM, async () => {
    throw new Error('SQLITE_BUSY at /var/lib/switchboard/quota.sqlite');
  }, { scope: 'public' });
const LEAKY = { method: 'GET', path: '/v1/leaky', status: 200, response: successEnvelope(z.object({ ok: z.boolean() })) } as const satisfies EndpointContract;
const leaky = (app: FastifyInstance) =>
  defineRoute(app, LEAKY, async () => ({ ...success({ ok: true, internal: 'secret' }) }), { scope: 'public' });

let bus: InProcessBus;
let app: FastifyInstance;
const admin = { ...bearer(ADMIN_KEY) };

beforeAll(async () => {
  ({ bus } = await quotaBus());
  app = await startGateway(bus, { routes: [boom, leaky] });
});
afterAll(async () => {
  await app.close();
  await bus.close();
});

type Injected = Awaited<ReturnType<FastifyInstance['inject']>>;

/** Every failure: the envelope, a 32-hex X-Request-Id equal to the body's requestId, no stack. */
function expectError(response: Injected, status: number, code: string) {
  expect(response.statusCode).toBe(status);
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  const body = response.json();
  expect(ErrorEnvelope.parse(body).error.code).toBe(code);
  expect(response.headers['x-request-id']).toMatch(TRACE_ID);
  expect(body.error.requestId).toBe(response.headers['x-request-id']);
  expect(response.body).not.toMatch(/\bat .+\.(ts|js):\d+/);
  return body.error as { message: string; details?: unknown };
}

describe('the error envelope for every failure', () => {
  it('unknown routes: 404 ROUTE_NOT_FOUND under both prefixes and anywhere else', async () => {
    for (const url of ['/v1/nope', '/api/v1/nope', '/nope', '/v2/sessions']) {
      expectError(await app.inject({ method: 'GET', url, headers: admin }), 404, 'ROUTE_NOT_FOUND');
    }
    expectError(await app.inject({ method: 'PUT', url: '/v1/admin/accounts', headers: admin }), 404, 'ROUTE_NOT_FOUND');
  });

  it('unparseable JSON: 400 INVALID_JSON', async () => {
    const response = await app.inject({ method: 'POST', url: '/v1/admin/accounts', headers: { ...admin, 'content-type': 'application/json' }, payload: '{"plan": "free",' });
    expectError(response, 400, 'INVALID_JSON');
  });

  it('a __proto__ key is refused as INVALID_JSON', async () => {
    const response = await app.inject({ method: 'POST', url: '/v1/admin/accounts', headers: { ...admin, 'content-type': 'application/json' }, payload: '{"plan":"free","__proto__":{"x":1}}' });
    expectError(response, 400, 'INVALID_JSON');
  });

  it('a body that is not JSON: 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const text = await app.inject({ method: 'POST', url: '/v1/admin/accounts', headers: { ...admin, 'content-type': 'text/plain' }, payload: 'plan=free' });
    expectError(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const form = await app.inject({ method: 'POST', url: '/api/v1/admin/accounts', headers: { ...admin, 'content-type': 'application/x-www-form-urlencoded' }, payload: 'plan=free' });
    expectError(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const none = await app.inject({ method: 'POST', url: '/v1/admin/accounts', headers: admin, payload: Buffer.from('{"plan":"free"}') });
    expect(none.headers['content-type']).toBeDefined();
    expectError(none, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it(`a body over ${BODY_LIMIT_BYTES} bytes: 413 PAYLOAD_TOO_LARGE`, async () => {
    const payload = JSON.stringify({ plan: 'free', name: 'x'.repeat(BODY_LIMIT_BYTES) });
    const response = await app.inject({ method: 'POST', url: '/v1/admin/accounts', headers: { ...admin, 'content-type': 'application/json' }, payload });
    expectError(response, 413, 'PAYLOAD_TOO_LARGE');
  });

  it('refuses unknown query parameters like unknown body fields, also where an endpoint takes none', async () => {
    const typo = expectError(await app.inject({ method: 'GET', url: '/v1/admin/accounts?limt=5', headers: admin }), 400, 'VALIDATION_ERROR');
    expect(typo.details).toEqual([{ path: 'query.limt', message: 'limt is not a known field' }]);
    const none = expectError(await app.inject({ method: 'GET', url: '/v1/admin/accounts/acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F?verbose=1', headers: admin }), 400, 'VALIDATION_ERROR');
    expect(none.details).toEqual([{ path: 'query.verbose', message: 'verbose is not a known field' }]);
  });

  it('accepts inline base64 media of 16 MB under the body limit (reaches validation, not 413)', async () => {
    const base64 = Buffer.alloc(16 * 1000 * 1000).toString('base64');
    const response = await app.inject({ method: 'POST', url: '/v1/admin/accounts', headers: { ...admin, 'content-type': 'application/json' }, payload: JSON.stringify({ plan: 'free', media: base64 }) });
    const error = expectError(response, 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([{ path: 'media', message: 'media is not a known field' }]);
  });

  it('schema failures: 400 VALIDATION_ERROR with every problem at once, unknown fields included', async () => {
    const payload = { plan: 'gold', name: '', nickname: 'x', extra: 1 };
    const error = expectError(await app.inject({ method: 'POST', url: '/v1/admin/accounts', headers: admin, payload }), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([
      { path: 'name', message: 'name must be 1–100 characters' },
      { path: 'plan', message: 'plan must be one of "free", "basic", "premium", "enterprise"' },
      { path: 'nickname', message: 'nickname is not a known field' },
      { path: 'extra', message: 'extra is not a known field' },
    ]);
  });

  it('reports path parameters and body together, path parameters prefixed', async () => {
    const error = expectError(
      await app.inject({ method: 'PATCH', url: '/v1/admin/accounts/acc_nope', headers: admin, payload: { plan: 'x' } }),
      400,
      'VALIDATION_ERROR',
    );
    expect((error.details as { path: string }[]).map((d) => d.path)).toEqual(['params.accountId', 'plan']);
  });

  it('an absent body counts as {} so each required field is named', async () => {
    const error = expectError(await app.inject({ method: 'POST', url: '/v1/admin/accounts', headers: admin }), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([{ path: 'plan', message: expect.any(String) }]);
    const empty = await app.inject({ method: 'POST', url: '/v1/admin/accounts', headers: { ...admin, 'content-type': 'application/json' }, payload: '' });
    expectError(empty, 400, 'VALIDATION_ERROR');
  });

  it('a bug: 500 INTERNAL_ERROR with the generic sentence, nothing of the internals', async () => {
    const error = expectError(await app.inject({ method: 'GET', url: '/v1/boom' }), 500, 'INTERNAL_ERROR');
    expect(error.message).toBe('An internal error occurred; quote the request id when reporting it.');
    expect(JSON.stringify(error)).not.toMatch(/SQLITE|var\/lib/);
  });

  it('strips from a success body whatever its contract does not name', async () => {
    const response = await app.inject({ method: 'GET', url: '/v1/leaky' });
    expect(response.json()).toEqual({ success: true, data: { ok: true } });
  });

  it('X-Request-Id is on successes too, one new id per request', async () => {
    const [a, b] = await Promise.all([app.inject({ method: 'GET', url: '/healthz' }), app.inject({ method: 'GET', url: '/healthz' })]);
    expect(a?.headers['x-request-id']).toMatch(TRACE_ID);
    expect(a?.headers['x-request-id']).not.toBe(b?.headers['x-request-id']);
  });

  it('does not let a client choose its request id', async () => {
    const chosen = '4bf92f3577b34da6a3ce929d0e0e4736';
    const response = await app.inject({
      method: 'GET',
      url: '/v1/nope',
      headers: { 'x-request-id': chosen, traceparent: `00-${chosen}-00f067aa0ba902b7-01` },
    });
    expect(response.headers['x-request-id']).not.toBe(chosen);
  });
});
