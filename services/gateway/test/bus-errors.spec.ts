import { ApiError, success, successEnvelope } from '@switchboard/contracts';
import type { EndpointContract } from '@switchboard/contracts';
import { InProcessBus } from '@switchboard/bus';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoute, RETRY_AFTER_UNAVAILABLE_SECONDS } from '../src/index.js';
import { ADMIN_KEY, bearer, startGateway, TRACE_ID } from './support.js';

/** A test-only subject and the route that calls it, with a short deadline. */
const ECHO = { subject: 'sb.v1.test.echo', request: z.object({ n: z.number() }), reply: z.object({ n: z.number() }) };
const CALL = { method: 'GET', path: '/v1/admin/echo', status: 200, response: successEnvelope(z.object({ n: z.number() })) } as const satisfies EndpointContract;
const DEADLINE_MS = 300;
const echoRoute = (app: FastifyInstance) =>
  defineRoute(app, CALL, async (ctx) => success(await ctx.call(ECHO, { n: 1 }, { timeoutMs: DEADLINE_MS })));

let bus: InProcessBus;
let app: FastifyInstance;
const call = () => app.inject({ method: 'GET', url: '/v1/admin/echo', headers: bearer(ADMIN_KEY) });

beforeEach(async () => {
  bus = new InProcessBus({ logger: { error() {}, warn() {}, info() {} } });
  app = await startGateway(bus, { routes: [echoRoute] });
});
afterEach(async () => {
  await app.close();
  await bus.close();
});

describe('bus failures as HTTP', () => {
  it('passes the reply through, with correlation-id = request id', async () => {
    const seen: Record<string, string>[] = [];
    await bus.subscribe(ECHO.subject, (message) => {
      seen.push(message.headers);
      return message.data;
    });
    const response = await call();
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, data: { n: 1 } });
    expect(seen[0]?.['correlation-id']).toBe(response.headers['x-request-id']);
  });

  it('no responder: 503 SERVICE_UNAVAILABLE with Retry-After', async () => {
    const response = await call();
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe(String(RETRY_AFTER_UNAVAILABLE_SECONDS));
    expect(response.json().error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', requestId: response.headers['x-request-id'] });
  });

  it('a closed bus: 503 SERVICE_UNAVAILABLE', async () => {
    await bus.close();
    const response = await call();
    expect([response.statusCode, response.json().error.code]).toEqual([503, 'SERVICE_UNAVAILABLE']);
  });

  it('a slow responder: 504 UPSTREAM_TIMEOUT', async () => {
    await bus.subscribe(ECHO.subject, async (message) => {
      await new Promise((resolve) => setTimeout(resolve, DEADLINE_MS * 5));
      return message.data;
    });
    const response = await call();
    expect(response.statusCode).toBe(504);
    expect(response.json().error).toMatchObject({ code: 'UPSTREAM_TIMEOUT', requestId: expect.stringMatching(TRACE_ID) });
  });

  it("a service's named error keeps its code, status, message and details", async () => {
    await bus.subscribe(ECHO.subject, () => {
      throw new ApiError('SESSION_NOT_CONNECTED', 'The session is pending.', { status: 'pending' });
    });
    const response = await call();
    expect(response.statusCode).toBe(409);
    expect(response.json().error).toMatchObject({ code: 'SESSION_NOT_CONNECTED', message: 'The session is pending.', details: { status: 'pending' } });
  });

  it('a daily limit answers 429 with Retry-After until the reset', async () => {
    const resetsAt = new Date(Date.now() + 90_000).toISOString();
    await bus.subscribe(ECHO.subject, () => {
      throw new ApiError('DAILY_MESSAGE_LIMIT_REACHED', undefined, { limit: 50, used: 50, resetsAt });
    });
    const response = await call();
    expect(response.statusCode).toBe(429);
    expect(Number(response.headers['retry-after'])).toBeGreaterThan(60);
    expect(Number(response.headers['retry-after'])).toBeLessThanOrEqual(90);
  });

  it("a service's bug and a reply that breaks the contract: 500 INTERNAL_ERROR, nothing leaked", async () => {
    await bus.subscribe(ECHO.subject, () => {
      throw new Error('disk full on node-7');
    });
    const bug = await call();
    expect([bug.statusCode, bug.json().error.code]).toEqual([500, 'INTERNAL_ERROR']);
    expect(bug.body).not.toContain('node-7');
    await bus.close();
    bus = new InProcessBus({ logger: { error() {}, warn() {}, info() {} } });
    await app.close();
    app = await startGateway(bus, { routes: [echoRoute] });
    await bus.subscribe(ECHO.subject, () => ({ n: 'one' }));
    const broken = await call();
    expect([broken.statusCode, broken.json().error.code]).toEqual([500, 'INTERNAL_ERROR']);
  });
});
