import { ErrorEnvelope } from '@switchboard/contracts';
import type { InProcessBus } from '@switchboard/bus';
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { head, rawExchange } from './raw-socket.js';
import type { RawAnswer } from './raw-socket.js';
import { ADMIN_KEY, quotaBus, startGateway, TRACE_ID } from './support.js';

// What a fuzzer or a broken client sends, straight onto a socket of a listening gateway: URLs the
// router refuses and bytes node's HTTP parser refuses. Each answer must be the error envelope with
// X-Request-Id, and must not repeat what was sent (a path can carry a token or a phone number).

let bus: InProcessBus;
let app: FastifyInstance;
let port: number;
const admin = { Authorization: `Bearer ${ADMIN_KEY}` };
const LONG = 'Q'.repeat(300);
const HUGE = 'Q'.repeat(17 * 1024);

beforeAll(async () => {
  ({ bus } = await quotaBus());
  app = await startGateway(bus);
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await app.close();
  await bus.close();
});

function expectEnvelope(answer: RawAnswer, status: number, code: string, sent: string) {
  expect(answer.status, `answer: ${answer.body.slice(0, 200)}`).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = ErrorEnvelope.parse(JSON.parse(answer.body));
  expect(body.error.code).toBe(code);
  expect(answer.headers['x-request-id']).toMatch(TRACE_ID);
  expect(body.error.requestId).toBe(answer.headers['x-request-id']);
  expect(answer.body).not.toContain(sent);
  expect(answer.body).not.toMatch(/FST_|HPE_|Client Error/);
  return body.error;
}

interface Case {
  name: string;
  request: string;
  status: number;
  code: string;
  /** What the answer must not repeat. */
  marker: string;
  details?: unknown;
}

describe('URLs the router refuses answer in the envelope', () => {
  const cases: Case[] = [
    {
      name: 'a lone % in a path',
      request: head('GET /v1/admin/accounts/acc_% HTTP/1.1', admin),
      status: 400,
      code: 'VALIDATION_ERROR',
      marker: 'acc_%',
      details: [{ path: 'url', message: expect.stringContaining('percent') }],
    },
    {
      name: 'a malformed %-escape in a path parameter',
      request: head('GET /v1/admin/accounts/acc_%zz HTTP/1.1', admin),
      status: 400,
      code: 'VALIDATION_ERROR',
      marker: 'acc_%zz',
      details: [{ path: 'url', message: expect.stringContaining('percent') }],
    },
    { name: 'a bad escape on an unknown route', request: head('GET /nowhere%G1/zqx HTTP/1.1'), status: 400, code: 'VALIDATION_ERROR', marker: 'zqx' },
    {
      name: 'a path parameter of 300 characters reaches validation',
      request: head(`GET /v1/admin/accounts/acc_${LONG} HTTP/1.1`, admin),
      status: 400,
      code: 'VALIDATION_ERROR',
      marker: 'QQQQQQQQ',
      details: [{ path: 'params.accountId', message: expect.any(String) }],
    },
    { name: 'a long path parameter without a key is refused by auth first', request: head(`GET /v1/sessions/${LONG} HTTP/1.1`), status: 401, code: 'UNAUTHORIZED', marker: 'QQQQQQQQ' },
    { name: 'a long segment of an unknown route', request: head(`GET /v1/nope/${LONG}/x HTTP/1.1`), status: 404, code: 'ROUTE_NOT_FOUND', marker: 'QQQQQQQQ' },
  ];
  it.each(cases)('$name: $status $code', async ({ request, status, code, marker, details }) => {
    const error = expectEnvelope(await rawExchange(port, [request]), status, code, marker);
    if (details !== undefined) expect(error.details).toEqual(details);
  });
});

describe('requests node refuses to parse answer in the envelope, then the connection closes', () => {
  const post = (headers: Record<string, string>) => head('POST /v1/admin/accounts HTTP/1.1', { ...admin, 'Content-Type': 'application/json', ...headers });
  const cases: Case[] = [
    { name: 'NUL in the path', request: head('GET /v1/ses\0zqx HTTP/1.1'), status: 400, code: 'VALIDATION_ERROR', marker: 'zqx' },
    { name: 'NUL in a header value', request: head('GET /healthz HTTP/1.1', { 'X-Note': 'a\0zqx' }), status: 400, code: 'VALIDATION_ERROR', marker: 'zqx' },
    { name: 'a header name with a space', request: head('GET /healthz HTTP/1.1', { 'X zqx': 'a' }), status: 400, code: 'VALIDATION_ERROR', marker: 'zqx' },
    { name: 'Content-Length together with Transfer-Encoding', request: `${post({ 'Content-Length': '2', 'Transfer-Encoding': 'chunked', 'X-Note': 'zqx' })}{}`, status: 400, code: 'VALIDATION_ERROR', marker: 'zqx' },
    { name: 'a chunk size that is not hex', request: `${post({ 'Transfer-Encoding': 'chunked' })}zqx\r\n{}\r\n0\r\n\r\n`, status: 400, code: 'VALIDATION_ERROR', marker: 'zqx' },
    { name: 'an unknown HTTP version', request: head('GET /healthz HTTP/7.1'), status: 400, code: 'VALIDATION_ERROR', marker: 'HTTP/7' },
    { name: 'not HTTP at all (TLS to the plain port)', request: '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03zqx', status: 400, code: 'VALIDATION_ERROR', marker: 'zqx' },
    { name: 'a request line over 16 KiB', request: head(`GET /v1/${HUGE} HTTP/1.1`), status: 431, code: 'HEADERS_TOO_LARGE', marker: 'QQQQQQQQ' },
    { name: 'a header over 16 KiB', request: head('GET /healthz HTTP/1.1', { 'X-Note': HUGE }), status: 431, code: 'HEADERS_TOO_LARGE', marker: 'QQQQQQQQ' },
  ];
  it.each(cases)('$name: $status $code', async ({ request, status, code, marker }) => {
    const answer = await rawExchange(port, [request], { awaitClose: true });
    expectEnvelope(answer, status, code, marker);
    expect(answer.headers['connection']).toBe('close');
    expect(answer.closed).toBe(true);
  });

  it('states the header limit it enforced', async () => {
    const error = expectEnvelope(await rawExchange(port, [head('GET /healthz HTTP/1.1', { 'X-Note': HUGE })]), 431, 'HEADERS_TOO_LARGE', 'QQQQ');
    expect(error.details).toEqual({ limitBytes: 16 * 1024 });
    expect(error.message).toContain('16 KiB');
  });

  it('a request after a refused one gets its own request id', async () => {
    const [a, b] = await Promise.all([rawExchange(port, [head('GET /v1/\0 HTTP/1.1')]), rawExchange(port, [head('GET /v1/\0 HTTP/1.1')])]);
    expect(a.headers['x-request-id']).toMatch(TRACE_ID);
    expect(a.headers['x-request-id']).not.toBe(b.headers['x-request-id']);
  });
});
