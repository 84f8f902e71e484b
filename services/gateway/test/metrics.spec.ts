import { InProcessBus } from '@switchboard/bus';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startGateway } from './support.js';

// GET /metrics without a key, and the HTTP series an SRE alerts on: by route template and status.
let bus: InProcessBus;
let app: FastifyInstance;

beforeAll(async () => {
  bus = new InProcessBus({ logger: { error() {}, warn() {}, info() {} } });
  app = await startGateway(bus);
});
afterAll(async () => {
  await app.close();
  await bus.close();
});

async function scrape(): Promise<Map<string, number>> {
  const response = await app.inject({ method: 'GET', url: '/metrics' });
  expect(response.statusCode).toBe(200);
  expect(response.headers['content-type']).toContain('text/plain');
  const series = new Map<string, number>();
  for (const line of response.body.split('\n').filter((l) => l && !l.startsWith('#'))) {
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

it('counts responses by route template and status, unknown paths under one label', async () => {
  const before = await scrape();
  await app.inject({ method: 'GET', url: '/healthz' });
  await app.inject({ method: 'GET', url: '/v1/sessions/ses_01J0000000000000000000000' });
  await app.inject({ method: 'GET', url: '/wp-admin/setup.php' });
  await app.inject({ method: 'GET', url: '/.env' });
  const after = await scrape();
  const grew = (series: string) => (after.get(series) ?? 0) - (before.get(series) ?? 0);
  expect(grew('switchboard_http_requests_total{method="GET",route="/healthz",status="200"}')).toBe(1);
  expect(grew('switchboard_http_requests_total{method="GET",route="/v1/sessions/:sessionId",status="401"}')).toBe(1);
  expect(grew('switchboard_http_requests_total{method="GET",route="unmatched",status="404"}')).toBe(2);
  expect(grew('switchboard_http_request_duration_seconds_count{method="GET",route="/healthz",status="200"}')).toBe(1);
  expect([...after.keys()].some((series) => series.includes('wp-admin') || series.includes('ses_01J'))).toBe(false);
  expect(after.get('process_resident_memory_bytes')).toBeGreaterThan(0);
});
