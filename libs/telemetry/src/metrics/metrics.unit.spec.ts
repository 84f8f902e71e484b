import { describe, expect, it } from 'vitest';
import { createMetrics, processMetrics } from './catalog.js';
import { startMetricsServer } from './server.js';
import { outcomeOf, routeLabel, secondsBetween, timeAsync } from './timing.js';

/** One sample line of the exposition, e.g. `switchboard_sends_total{type="text",outcome="sent"} 2`. */
async function sample(metrics: ReturnType<typeof createMetrics>, series: string): Promise<number | undefined> {
  const text = await metrics.registry.metrics();
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the metrics an SRE scrapes', () => {
  it('names every Switchboard metric with the switchboard_ prefix next to the process metrics', async () => {
    const text = await createMetrics().registry.metrics();
    for (const name of [
      'switchboard_http_requests_total', 'switchboard_http_request_duration_seconds', 'switchboard_sends_total',
      'switchboard_send_ack_duration_seconds', 'switchboard_delivery_latency_seconds', 'switchboard_sessions',
      'switchboard_bus_request_duration_seconds', 'switchboard_eventstore_append_duration_seconds',
      'switchboard_projection_lag_events', 'switchboard_quota_rejections_total', 'process_cpu_seconds_total', 'nodejs_heap_size_used_bytes',
    ]) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });

  it('times an operation as ok, or by the failed error code, and rethrows the error', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    const histogram = metrics.busRequestDuration;
    await expect(timeAsync(histogram, { subject: 'sb.v1.quota.reserve-daily' }, async () => 'done')).resolves.toBe('done');
    const refused = Object.assign(new Error('limit'), { code: 'DAILY_MESSAGE_LIMIT_REACHED' });
    await expect(timeAsync(histogram, { subject: 'sb.v1.quota.reserve-daily' }, () => Promise.reject(refused))).rejects.toBe(refused);
    expect(await sample(metrics, 'switchboard_bus_request_duration_seconds_count{subject="sb.v1.quota.reserve-daily",outcome="ok"}')).toBe(1);
    expect(await sample(metrics, 'switchboard_bus_request_duration_seconds_count{subject="sb.v1.quota.reserve-daily",outcome="DAILY_MESSAGE_LIMIT_REACHED"}')).toBe(1);
  });

  it('labels outcomes with codes or class names, never with messages', () => {
    expect(outcomeOf(Object.assign(new Error('x'), { code: 'UPSTREAM_TIMEOUT' }))).toBe('UPSTREAM_TIMEOUT');
    expect(outcomeOf(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED');
    expect(outcomeOf(Object.assign(new Error('x'), { code: 'hello mum, call me' }))).toBe('Error');
    expect(outcomeOf(new TypeError('secret text'))).toBe('TypeError');
    expect(outcomeOf('a string')).toBe('error');
    expect(outcomeOf(null)).toBe('error');
  });

  it('puts unmatched paths under one route label so probes cannot multiply the series', () => {
    expect(routeLabel('/v1/sessions/:sessionId')).toBe('/v1/sessions/:sessionId');
    expect(routeLabel(undefined)).toBe('unmatched');
    expect(routeLabel('')).toBe('unmatched');
  });

  it('measures receipt latency from ISO timestamps and refuses nonsense', () => {
    expect(secondsBetween('2026-11-21T10:00:00.000Z', '2026-11-21T10:00:01.500Z')).toBe(1.5);
    expect(secondsBetween('2026-11-21T10:00:01.000Z', '2026-11-21T10:00:00.000Z')).toBeUndefined();
    expect(secondsBetween(undefined, '2026-11-21T10:00:00.000Z')).toBeUndefined();
    expect(secondsBetween('yesterday', '2026-11-21T10:00:00.000Z')).toBeUndefined();
  });

  it('reads sourced gauges at scrape time, skips a failing source and forgets a removed one', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    let connected = 2;
    const removeSessions = metrics.sessions.addSource(() => [[{ state: 'connected' }, connected], [{ state: 'pending' }, 1]]);
    metrics.sessions.addSource(() => Promise.reject(new Error('database is closed')));
    expect(await sample(metrics, 'switchboard_sessions{state="connected"}')).toBe(2);
    connected = 3;
    expect(await sample(metrics, 'switchboard_sessions{state="connected"}')).toBe(3);
    expect(await sample(metrics, 'switchboard_sessions{state="pending"}')).toBe(1);
    removeSessions();
    expect(await sample(metrics, 'switchboard_sessions{state="connected"}')).toBeUndefined();
  });

  it('keeps one registry per process', () => {
    expect(processMetrics()).toBe(processMetrics());
    expect(createMetrics({ defaultMetrics: false }).registry).not.toBe(processMetrics().registry);
  });

  it('serves GET /metrics in the Prometheus text format and nothing else', async () => {
    const metrics = createMetrics({ defaultMetrics: false });
    metrics.quotaRejections.inc({ kind: 'daily_messages' });
    const server = await startMetricsServer({ registry: metrics.registry, host: '127.0.0.1', port: 0 });
    try {
      const response = await fetch(server.url);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain('text/plain');
      expect(await response.text()).toContain('switchboard_quota_rejections_total{kind="daily_messages"} 1');
      expect((await fetch(server.url.replace('/metrics', '/'))).status).toBe(404);
      expect((await fetch(server.url, { method: 'POST' })).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});
