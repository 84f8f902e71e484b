import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedLoopbackPort } from '@switchboard/bus/testing';
import { startDistributed } from '../support/harness.js';
import type { SwitchboardUnderTest } from '../support/harness.js';
import { ApiClient, eventually } from '../support/http.js';
import { startOtlpCollector } from '../support/otlp-collector.js';
import type { CollectedSpan, OtlpCollector } from '../support/otlp-collector.js';
import { growth, scrape } from '../support/scrape.js';

// What an SRE sees of the distributed mode (gateway, quota, sessions and messaging as separate
// processes over a private NATS): traces in a collector, /metrics of every process, and logs.
const SECRET_TEXT = `observability-text-${randomBytes(6).toString('hex')}`;
const SECRET_KEY = randomBytes(32).toString('hex');
let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;

describe('traces, metrics and logs across the distributed processes', () => {
  let collector: OtlpCollector;
  let sut: SwitchboardUnderTest;
  let api: ApiClient;
  let sessionId: string;
  const output: { process: string; chunk: string }[] = [];
  const metricsUrl: Record<'gateway' | 'quota' | 'sessions' | 'messaging', string> = { gateway: '', quota: '', sessions: '', messaging: '' };

  const traceOf = (traceId: string) => collector.spans.filter((s) => s.traceId === traceId);
  const one = (spans: CollectedSpan[], service: string, name: string) => {
    const found = spans.filter((s) => s.service === service && s.name === name);
    expect(found.map((s) => `${s.service}: ${s.name}`), `exactly one "${name}" span from ${service}`).toHaveLength(1);
    return found[0]!;
  };

  beforeAll(async () => {
    collector = await startOtlpCollector();
    const ports = { quota: await closedLoopbackPort(), sessions: await closedLoopbackPort(), messaging: await closedLoopbackPort() };
    sut = await startDistributed({
      env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint, OTEL_BSP_SCHEDULE_DELAY: '100', LOG_LEVEL: 'debug', SWITCHBOARD_SECRET_KEY: SECRET_KEY },
      processEnv: {
        quota: { SWITCHBOARD_METRICS_PORT: String(ports.quota) },
        sessions: { SWITCHBOARD_METRICS_PORT: String(ports.sessions) },
        messaging: { SWITCHBOARD_METRICS_PORT: String(ports.messaging) },
      },
      onOutput: (process, chunk) => output.push({ process, chunk }),
    });
    metricsUrl.gateway = `${sut.url}/metrics`;
    for (const name of ['quota', 'sessions', 'messaging'] as const) metricsUrl[name] = `http://127.0.0.1:${ports[name]}/metrics`;
    api = new ApiClient(sut.url, sut.apiKey);
    const created = await api.post('/v1/sessions', { name: 'observability' });
    await sut.emulator.scan(created.body.data.qrCode, newPhone('1555'));
    sessionId = created.body.data.sessionId;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  }, 240_000);
  afterAll(async () => {
    await sut?.close();
    await collector?.close();
  });

  it('follows one text send through gateway, messaging, quota and sessions in one trace whose id is X-Request-Id', async () => {
    const sent = await api.post('/v1/messages/text', { sessionId, to: newPhone('1777'), text: SECRET_TEXT });
    expect(sent.status).toBe(201);
    const requestId = sent.headers.get('x-request-id')!;
    expect(requestId).toMatch(/^[0-9a-f]{32}$/);
    const spans = await eventually(
      async () => traceOf(requestId),
      // Each process exports on its own schedule: wait for the last pieces of the send.
      (found) => found.some((s) => s.name === 'chat send text') && found.filter((s) => s.name === 'append message').length >= 2 && found.some((s) => s.kind === 'server'),
    );
    expect(new Set(spans.map((s) => s.service))).toEqual(new Set(['gateway', 'messaging', 'quota', 'sessions']));

    const server = one(spans, 'gateway', 'POST /v1/messages/text');
    if (process.env['SB_PRINT_TRACE']) console.log(traceTree(spans, server));
    expect(server).toMatchObject({ kind: 'server', parentSpanId: undefined });
    const toMessaging = one(spans, 'gateway', 'send sb.v1.messaging.sendText');
    expect(toMessaging).toMatchObject({ kind: 'producer', parentSpanId: server.spanId });
    const inMessaging = one(spans, 'messaging', 'process sb.v1.messaging.sendText');
    expect(inMessaging).toMatchObject({ kind: 'consumer', parentSpanId: toMessaging.spanId });
    const toQuota = one(spans, 'messaging', 'send sb.v1.quota.reserveDaily');
    const inQuota = one(spans, 'quota', 'process sb.v1.quota.reserveDaily');
    expect(inQuota.parentSpanId).toBe(toQuota.spanId);
    const toSessions = one(spans, 'messaging', 'send sb.v1.sessions.send');
    const inSessions = one(spans, 'sessions', 'process sb.v1.sessions.send');
    expect(inSessions.parentSpanId).toBe(toSessions.spanId);
    const driverSend = one(spans, 'sessions', 'chat send text');
    expect(driverSend).toMatchObject({ kind: 'client', parentSpanId: inSessions.spanId });

    // Every span hangs off the gateway's server span: no orphan, no second root.
    const byId = new Map(spans.map((s) => [s.spanId, s]));
    const rootOf = (span: CollectedSpan): CollectedSpan => (span.parentSpanId && byId.has(span.parentSpanId) ? rootOf(byId.get(span.parentSpanId)!) : span);
    for (const span of spans) expect(rootOf(span).spanId, `${span.service}: ${span.name}`).toBe(server.spanId);
    expect([toQuota, toSessions].every((s) => rootOf(s) === server && isBelow(s, inMessaging, byId))).toBe(true);
    const appends = spans.filter((s) => s.name.startsWith('append '));
    expect(appends.find((s) => s.service === 'quota' && isBelow(s, inQuota, byId))).toBeDefined();
    expect(appends.filter((s) => s.service === 'messaging' && s.name === 'append message').length).toBeGreaterThanOrEqual(2);
  });

  it('starts a receipt in a trace of its own that links back to the send', async () => {
    const sent = await api.post('/v1/messages/text', { sessionId, to: newPhone('1777'), text: SECRET_TEXT });
    const requestId = sent.headers.get('x-request-id')!;
    await eventually(() => api.get(`/v1/messages/${sent.body.data.messageId}`), (r) => r.body?.data?.status === 'read');
    const receipts = await eventually(
      async () => collector.spans.filter((s) => s.name === 'record receipt' && s.links.some((l) => l.traceId === requestId)),
      (found) => found.length >= 2,
    );
    // The linked span is the send's span in messaging that recorded it as sent.
    const sendSpans = new Set(traceOf(requestId).map((s) => s.spanId));
    const linked = collector.spans.find((s) => s.spanId === receipts[0]?.links[0]?.spanId);
    expect(linked).toMatchObject({ service: 'messaging', name: 'process sb.v1.messaging.sendText', traceId: requestId });
    for (const receipt of receipts) {
      expect(receipt.service).toBe('messaging');
      expect(receipt.traceId).not.toBe(requestId);
      expect(receipt.links.every((link) => sendSpans.has(link.spanId))).toBe(true);
      // The receipt's own trace starts in sessions, where the network's receipt arrived.
      const receiptTrace = await eventually(async () => traceOf(receipt.traceId), (found) => found.some((s) => s.parentSpanId === undefined));
      const root = receiptTrace.find((s) => s.parentSpanId === undefined);
      expect(root).toMatchObject({ service: 'sessions', name: 'chat receipts', kind: 'consumer' });
      expect(isBelow(receipt, root!, new Map(receiptTrace.map((s) => [s.spanId, s])))).toBe(true);
      if (process.env['SB_PRINT_TRACE']) console.log(traceTree(receiptTrace, root!, collector.spans));
    }
  });

  it('moves the /metrics counters of every process after sends and rejections', async () => {
    const before = await scrapeAll(metricsUrl);
    const invalid = await api.post('/v1/messages/text', { sessionId, to: 'not-a-number', text: SECRET_TEXT });
    expect(invalid.status).toBe(400);
    const free = api.withKey((await new ApiClient(sut.url, sut.adminKey).post('/v1/admin/accounts', { plan: 'free' })).body.data.apiKey);
    expect((await free.post('/v1/sessions', {})).status).toBe(201);
    expect((await free.post('/v1/sessions', {})).status).toBe(429);
    const sent = await api.post('/v1/messages/text', { sessionId, to: newPhone('1777'), text: SECRET_TEXT });
    expect(sent.status).toBe(201);
    await eventually(() => api.get(`/v1/messages/${sent.body.data.messageId}`), (r) => r.body?.data?.status === 'read');
    const after = await eventually(() => scrapeAll(metricsUrl), (s) => growth(before.messaging, s.messaging, 'switchboard_delivery_latency_seconds_count{receipt="read"}') >= 1);

    expect(growth(before.gateway, after.gateway, 'switchboard_http_requests_total{method="POST",route="/v1/messages/text",status="400"}')).toBe(1);
    expect(growth(before.gateway, after.gateway, 'switchboard_http_requests_total{method="POST",route="/v1/messages/text",status="201"}')).toBe(1);
    expect(growth(before.gateway, after.gateway, 'switchboard_http_requests_total{method="POST",route="/v1/sessions",status="429"}')).toBe(1);
    expect(growth(before.gateway, after.gateway, 'switchboard_http_request_duration_seconds_count{method="POST",route="/v1/sessions",status="429"}')).toBe(1);
    expect(growth(before.gateway, after.gateway, 'switchboard_bus_request_duration_seconds_count{subject="sb.v1.messaging.sendText",outcome="ok"}')).toBe(1);
    expect(growth(before.quota, after.quota, 'switchboard_quota_rejections_total{kind="sessions"}')).toBe(1);
    expect(growth(before.messaging, after.messaging, 'switchboard_sends_total{type="text",outcome="sent"}')).toBe(1);
    expect(growth(before.messaging, after.messaging, 'switchboard_bus_request_duration_seconds_count{subject="sb.v1.quota.reserveDaily",outcome="ok"}')).toBe(1);
    expect(growth(before.messaging, after.messaging, 'switchboard_delivery_latency_seconds_count{receipt="delivered"}')).toBe(1);
    expect(growth(before.sessions, after.sessions, 'switchboard_send_ack_duration_seconds_count{type="text",outcome="ok"}')).toBe(1);
    const system = sut.cluster?.eventStoreUrl ? 'postgresql' : 'sqlite';
    expect(growth(before.messaging, after.messaging, `switchboard_eventstore_append_duration_seconds_count{system="${system}",category="message",outcome="ok"}`)).toBeGreaterThanOrEqual(2);
    // On PostgreSQL each of those appends is two round trips, and the reads add theirs.
    if (system === 'postgresql') expect(growth(before.messaging, after.messaging, 'switchboard_postgres_queries_total{schema="messaging"}')).toBeGreaterThanOrEqual(4);
    expect(after.sessions['switchboard_sessions{state="connected"}']).toBeGreaterThanOrEqual(1);
    expect(after.sessions['switchboard_sessions{state="pending"}']).toBeGreaterThanOrEqual(1);
    expect(after.messaging['switchboard_projection_lag_events{projection="message-status-v1"}']).toBe(0);
    for (const process of ['gateway', 'quota', 'sessions', 'messaging'] as const) expect(after[process]['process_cpu_seconds_total']).toBeGreaterThan(0);
  });

  it('logs JSON lines with trace and account ids, and no API key, chat credential or message text', async () => {
    const text = output.map((o) => o.chunk).join('');
    const lines = text.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(20);
    expect(new Set(output.map((o) => o.process))).toEqual(new Set(['quota', 'sessions', 'messaging', 'events', 'gateway']));
    expect(lines.some((l) => l['service'] === 'sessions' && typeof l['trace_id'] === 'string' && String(l['account_id']).startsWith('acc_'))).toBe(true);
    expect(lines.some((l) => l['service'] === 'gateway' && typeof l['reqId'] === 'string' && String(l['account_id']).startsWith('acc_'))).toBe(true);
    for (const secret of [sut.apiKey, sut.adminKey, SECRET_KEY, SECRET_TEXT, 'noiseKey', 'signedIdentityKey', 'advSecretKey', 'Bearer ']) {
      expect(text.includes(secret), `logs contain ${secret.slice(0, 12)}…`).toBe(false);
    }
  });
});

function isBelow(span: CollectedSpan, ancestor: CollectedSpan, byId: Map<string, CollectedSpan>): boolean {
  for (let at = span.parentSpanId; at !== undefined; at = byId.get(at)?.parentSpanId) if (at === ancestor.spanId) return true;
  return false;
}

async function scrapeAll(urls: Record<'gateway' | 'quota' | 'sessions' | 'messaging', string>) {
  const [gateway, quota, sessions, messaging] = await Promise.all([urls.gateway, urls.quota, urls.sessions, urls.messaging].map(scrape));
  return { gateway: gateway!, quota: quota!, sessions: sessions!, messaging: messaging! };
}

/** The trace as an indented tree (`SB_PRINT_TRACE=1`): the README's sample comes from here. */
function traceTree(spans: CollectedSpan[], root: CollectedSpan, all: CollectedSpan[] = spans): string {
  const children = (span: CollectedSpan) => spans.filter((s) => s.parentSpanId === span.spanId).sort((a, b) => a.startMs - b.startMs);
  const lines: string[] = [`trace ${root.traceId}`];
  const walk = (span: CollectedSpan, depth: number) => {
    const links = span.links.map((l) => all.find((s) => s.spanId === l.spanId)).map((s) => `  --link--> "${s?.name}" of trace ${s?.traceId}`);
    lines.push(`${'  '.repeat(depth)}${span.name}  [${span.service}, ${span.kind}]${links.join('')}`);
    for (const child of children(span)) walk(child, depth + 1);
  };
  walk(root, 0);
  return lines.join('\n');
}
