import { success, successEnvelope } from '@switchboard/contracts';
import type { EndpointContract } from '@switchboard/contracts';
import { InProcessBus } from '@switchboard/bus';
import { inMemorySpans, startTelemetry } from '@switchboard/telemetry';
import type { TelemetryHandle } from '@switchboard/telemetry';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRoute } from '../src/index.js';
import { ADMIN_KEY, bearer, startGateway } from './support.js';

// Tracing ON (in-memory exporter): the request id is the trace id of the gateway's SERVER span,
// and the bus call continues that trace into the service.
const ECHO = { subject: 'sb.v1.test.echo', request: z.object({}), reply: z.object({}) };
const CALL = { method: 'GET', path: '/v1/admin/traced', status: 200, response: successEnvelope(z.object({})) } as const satisfies EndpointContract;

const spans = inMemorySpans();
let telemetry: TelemetryHandle;
let bus: InProcessBus;
let app: FastifyInstance;

beforeAll(async () => {
  telemetry = startTelemetry({ serviceName: 'gateway-test', env: {}, spanProcessors: [spans.processor] });
  bus = new InProcessBus({ logger: { error() {}, warn() {}, info() {} } });
  app = await startGateway(bus, { routes: [(a) => defineRoute(a, CALL, async (ctx) => success(await ctx.call(ECHO, {})))] });
});
afterAll(async () => {
  await app.close();
  await bus.close();
  await telemetry.shutdown();
});

it('uses the W3C trace id as X-Request-Id and carries it over the bus', async () => {
  const traceparents: string[] = [];
  await bus.subscribe(ECHO.subject, (message) => {
    traceparents.push(message.headers['traceparent'] ?? '');
    return {};
  });
  const response = await app.inject({ method: 'GET', url: '/v1/admin/traced', headers: bearer(ADMIN_KEY) });
  expect(response.statusCode).toBe(200);
  const requestId = response.headers['x-request-id'];
  expect(traceparents[0]).toMatch(new RegExp(`^00-${requestId}-[0-9a-f]{16}-01$`));
  const finished = await spans.finished();
  const server = finished.find((span) => span.name === 'GET /v1/admin/traced');
  expect(server?.spanContext().traceId).toBe(requestId);
  expect(server?.attributes['http.response.status_code']).toBe(200);
  const consumer = finished.find((span) => span.name === `process ${ECHO.subject}`);
  expect(consumer?.spanContext().traceId).toBe(requestId);
});

it('gives failures their trace id too', async () => {
  const response = await app.inject({ method: 'GET', url: '/v1/nowhere' });
  expect(response.json().error.requestId).toBe(response.headers['x-request-id']);
  const finished = await spans.finished();
  expect(finished.some((span) => span.spanContext().traceId === response.headers['x-request-id'])).toBe(true);
});
