import { ErrorEnvelope, success, successEnvelope } from '@switchboard/contracts';
import type { EndpointContract } from '@switchboard/contracts';
import type { InProcessBus } from '@switchboard/bus';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoute } from '../src/index.js';
import type { RequestLimits } from '../src/index.js';
import { head, rawExchange } from './raw-socket.js';
import type { RawAnswer } from './raw-socket.js';
import { ADMIN_KEY, quotaBus, startGateway, TRACE_ID } from './support.js';

// Slow clients against a listening gateway, with limits small enough to run in seconds. Without
// them a body trickling in (10 bytes every 200 ms against a 1 MiB Content-Length) holds its
// connection and its buffers for as long as the client likes.

const FLOOR: RequestLimits = { requestTimeoutMs: 60_000, minBodyBytesPerSecond: 1_024, bodyGraceMs: 1_000 };
const TIMEOUT: RequestLimits = { requestTimeoutMs: 2_000, minBodyBytesPerSecond: 100, bodyGraceMs: 1_000 };
const WAIT_MS = 8_000; // far beyond either limit; without them nothing would answer at all

const SLOW = { method: 'GET', path: '/v1/slow', status: 200, response: successEnvelope(z.object({})) } as const satisfies EndpointContract;
const slowRoute = (app: FastifyInstance) =>
  defineRoute(app, SLOW, async () => {
    await sleep(TIMEOUT.requestTimeoutMs + 1_500);
    return success({});
  }, { scope: 'public' });

let bus: InProcessBus;
const apps: FastifyInstance[] = [];
let floorPort: number;
let timeoutPort: number;

async function listening(limits: RequestLimits): Promise<number> {
  const app = await startGateway(bus, { requestLimits: limits, routes: [slowRoute] });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return (app.server.address() as AddressInfo).port;
}

beforeAll(async () => {
  ({ bus } = await quotaBus());
  floorPort = await listening(FLOOR);
  timeoutPort = await listening(TIMEOUT);
});
afterAll(async () => {
  await Promise.all(apps.map((app) => app.close()));
  await bus.close();
});

const createAccountHead = (contentLength: number) =>
  head('POST /v1/admin/accounts HTTP/1.1', { Authorization: `Bearer ${ADMIN_KEY}`, 'Content-Type': 'application/json', 'Content-Length': String(contentLength) });

/** `count` pieces of `size` bytes of JSON whitespace (never a complete body). */
function* trickle(size: number, count = 100_000): Generator<string> {
  for (let i = 0; i < count; i += 1) yield ' '.repeat(size);
}

function expectTimeout(answer: RawAnswer) {
  expect(answer.status, `no answer within ${WAIT_MS} ms`).toBe(408);
  const body = ErrorEnvelope.parse(JSON.parse(answer.body));
  expect(body.error.code).toBe('REQUEST_TIMEOUT');
  expect(answer.headers['x-request-id']).toMatch(TRACE_ID);
  expect(body.error.requestId).toBe(answer.headers['x-request-id']);
  expect(answer.headers['connection']).toBe('close');
  expect(answer.closed).toBe(true);
  return body.error;
}

describe('the body-rate floor', () => {
  it('a body trickling in below the floor is answered 408 REQUEST_TIMEOUT and its connection closed', async () => {
    const answer = await rawExchange(floorPort, [createAccountHead(1024 * 1024), ...trickle(10)], { gapMs: 200, waitMs: WAIT_MS, awaitClose: true });
    const error = expectTimeout(answer);
    expect(error.details).toEqual({ minBytesPerSecond: FLOOR.minBodyBytesPerSecond, graceSeconds: 1 });
    expect(error.message).toContain('1024 bytes/s');
  });

  it('does not cut a body that starts late, within the grace period, and then arrives at speed', async () => {
    const body = `{"plan":"basic"${' '.repeat(200_000)}}`;
    const pieces = [createAccountHead(body.length), ...(body.match(/[^]{1,20000}/g) ?? [])];
    const answer = await rawExchange(floorPort, [pieces[0] ?? '', ...Array<string>(10).fill(''), ...pieces.slice(1)], { gapMs: 60, waitMs: WAIT_MS });
    expect(answer.status, answer.body).toBe(201);
  });
});

describe('the whole-request timeout', () => {
  it('ends a body sent above the floor that never completes: 408 REQUEST_TIMEOUT, connection closed', async () => {
    const answer = await rawExchange(timeoutPort, [createAccountHead(1024 * 1024), ...trickle(100)], { gapMs: 50, waitMs: WAIT_MS, awaitClose: true });
    const error = expectTimeout(answer);
    expect(error.details).toEqual({ timeoutSeconds: 2 });
  });

  it('ends a request head that never completes (header slow-loris)', async () => {
    const lines = (function* () {
      yield 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n';
      for (let i = 0; i < 1_000; i += 1) yield `X-Pad-${i}: a\r\n`;
    })();
    const error = expectTimeout(await rawExchange(timeoutPort, lines, { gapMs: 100, waitMs: WAIT_MS, awaitClose: true }));
    expect(error.message).toBe('The request head was not received within 2 s.');
  });

  it('bounds receiving only: a handler slower than the timeout still answers a complete request', async () => {
    const answer = await rawExchange(timeoutPort, [head('GET /v1/slow HTTP/1.1')], { waitMs: WAIT_MS });
    expect(answer.status, answer.body).toBe(200);
  });
});
