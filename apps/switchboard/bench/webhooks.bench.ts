/**
 * `npm run bench:webhooks -w @switchboard/app` (also part of `npm run bench`): issue 11's events
 * figures, in the embedded mode, the emulator in its own process (the network is not ours to
 * count: it encrypts every message, as the real one's senders do on their phones).
 * 0. The load generator's own ceiling: the same inbound texts to a raw Baileys socket that only
 *    counts them (no Switchboard): the pipeline's rate must stay below it to mean anything.
 * 1. Network to webhook: BENCH_WEBHOOK_MESSAGES (default 1000) inbound texts from contacts of the
 *    emulator (20 in flight), each a `message.received` at a local receiver and on an SSE stream:
 *    events/s, p50/p99 from the emulator's send to the arrival, and Switchboard's CPU per event.
 *    Once as a burst (throughput; latency then includes the queue), once paced at
 *    BENCH_WEBHOOK_PACED_RATE/s (default 100: latency without a queue).
 * 2. The dispatcher alone (events service in this process, deliveries put straight in its queue):
 *    deliveries/s to a fast local receiver for 5,000 events of one session (strictly one at a time)
 *    and of 8 sessions, with the CPU per delivery of this process (dispatcher and receiver).
 * 3. Ten endpoints, one of which never answers (each attempt waits for the 10 s timeout): the
 *    delivery rate of the nine others against a run where all ten answer.
 * 4. Dispatcher memory with 10,000 deliveries pending a retry (events service alone, in-process).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InProcessBus } from '@switchboard/bus';
import { closedLoopbackPort } from '@switchboard/bus/testing';
import { startEventsService } from '@switchboard/events';
import type { RunningEventsService } from '@switchboard/events';
import { EmulatorControlClient } from '@switchboard/chat-emulator';
import { loadConfig } from '@switchboard/service-kit';
import { createLogger } from '@switchboard/telemetry';
import { startEmbedded, startEmulatorProcess } from '../test/support/harness.js';
import type { EmulatorProcess } from '../test/support/harness.js';
import { ApiClient, eventually } from '../test/support/http.js';
import { openEventStream } from '../test/support/webhook-receiver.js';
import { serverCpuPerTask } from './process-metrics.js';
import { linkRawBaileys } from './raw-baileys.js';
import { summarize } from './stats.js';

const MESSAGES = Number(process.env['BENCH_WEBHOOK_MESSAGES'] ?? 1000);
const FANOUT_MESSAGES = Number(process.env['BENCH_WEBHOOK_FANOUT_MESSAGES'] ?? 300);
const PACED_RATE = Number(process.env['BENCH_WEBHOOK_PACED_RATE'] ?? 100);
const NODE_OPTIONS = process.env['BENCH_NODE_OPTIONS'];
const PENDING = 10_000;

/** A receiver that notes when each message.received text arrived (or never answers, when dead). */
async function receiver(dead = false) {
  const arrivals = new Map<string, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      if (dead) return;
      const event = JSON.parse(Buffer.concat(chunks).toString()) as { type: string; data: { text?: string } };
      if (event.type === 'message.received' && event.data.text && !arrivals.has(event.data.text)) arrivals.set(event.data.text, performance.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/**
 * Sends `count` inbound texts from 20 contacts, `inFlight` at once (and no more than `perSecond`
 * when given); the send time of each text.
 */
async function sendInbound(emulator: EmulatorControlClient, linked: string, prefix: string, count: number, inFlight: number, perSecond?: number) {
  const sentAt = new Map<string, number>();
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async (_, w) => {
    while (next < count) {
      const i = next++;
      if (perSecond) await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + (i * 1000) / perSecond - performance.now())));
      const text = `${prefix} ${i}`;
      sentAt.set(text, performance.now());
      await emulator.inbound(`1555777${String(w % 20).padStart(4, '0')}`, linked, text);
    }
  }));
  return sentAt;
}

/** The emulator's own rate: the same burst to a raw Baileys socket that only counts what it receives. */
async function loadGeneratorCeiling(emulator: EmulatorProcess) {
  const linked = '15556660009';
  const sock = await linkRawBaileys(emulator, linked);
  const arrivals = new Map<string, number>();
  sock.ev.on('messages.upsert', ({ messages }) => {
    for (const m of messages) {
      const text = m.message?.conversation ?? m.message?.extendedTextMessage?.text;
      if (text && !arrivals.has(text)) arrivals.set(text, performance.now());
    }
  });
  try {
    const control = new EmulatorControlClient(emulator.controlUrl);
    await sendInbound(control, linked, 'warm', 40, 20);
    const sentAt = await sendInbound(control, linked, 'raw', MESSAGES, 20);
    await eventually(async () => arrivals.size, (n) => n >= MESSAGES + 40, 60_000).catch(() => undefined);
    return figures(sentAt, arrivals);
  } finally {
    sock.end(undefined);
  }
}

function figures(sentAt: Map<string, number>, arrivals: Map<string, number>) {
  const latencies = [...sentAt].filter(([text]) => arrivals.has(text)).map(([text, t]) => arrivals.get(text)! - t);
  const first = Math.min(...sentAt.values());
  const last = Math.max(...[...arrivals.values()]);
  return { ...summarize(latencies, (last - first) / 1000), delivered: `${latencies.length}/${sentAt.size}` };
}

async function networkToWebhookAndSse(emulator: EmulatorProcess) {
  const sut = await startEmbedded({ emulator, env: { LOG_LEVEL: 'error', ...(NODE_OPTIONS ? { NODE_OPTIONS } : {}) } });
  try {
    const api = new ApiClient(sut.url, sut.apiKey);
    const linked = '15556660001';
    const created = await api.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, linked);
    await eventually(() => api.get(`/v1/sessions/${created.body.data.sessionId}`), (r) => r.body?.data?.status === 'connected');
    const fast = await receiver();
    await api.post('/v1/webhooks', { url: fast.url, events: ['message.received'] });
    const sse = openEventStream(sut.url, sut.apiKey);
    await sse.response;
    const sseArrivals = new Map<string, number>();
    const seen = setInterval(() => {
      for (const frame of sse.frames.splice(0)) {
        const text = frame.data.data['text'];
        if (typeof text === 'string' && !sseArrivals.has(text)) sseArrivals.set(text, performance.now());
      }
    }, 1);
    const run = async (prefix: string, count: number, perSecond?: number) => {
      const sentAt = await sendInbound(sut.emulator, linked, prefix, count, 20, perSecond);
      const all = (arrivals: Map<string, number>) => [...sentAt.keys()].every((text) => arrivals.has(text));
      await eventually(async () => all(fast.arrivals), (done) => done, 120_000).catch(() => undefined);
      await eventually(async () => all(sseArrivals), (done) => done, 30_000).catch(() => undefined);
      return { webhook: figures(sentAt, fast.arrivals), stream: figures(sentAt, sseArrivals) };
    };
    await run('warm', 100, PACED_RATE);
    const pids = { switchboard: sut.pidOf('switchboard')! };
    const burst = await serverCpuPerTask(pids, MESSAGES, () => run('bench', MESSAGES));
    const paced = await serverCpuPerTask(pids, MESSAGES, () => run('paced', MESSAGES, PACED_RATE));
    clearInterval(seen);
    await sse.close();

    // Ten endpoints: first all answering, then one that never answers.
    const list = (await api.get('/v1/webhooks')).body.data.webhooks as { webhookId: string }[];
    for (const w of list) await api.delete(`/v1/webhooks/${w.webhookId}`);
    const rate = async (deadOne: boolean, prefix: string) => {
      const receivers = await Promise.all(Array.from({ length: 10 }, (_, i) => receiver(deadOne && i === 9)));
      const ids: string[] = [];
      for (const r of receivers) ids.push((await api.post('/v1/webhooks', { url: r.url, events: ['message.received'] })).body.data.webhookId);
      const sent = await sendInbound(sut.emulator, linked, prefix, FANOUT_MESSAGES, 20);
      const live = receivers.slice(0, 9);
      await eventually(async () => live.every((r) => r.arrivals.size >= FANOUT_MESSAGES), (done) => done, 120_000).catch(() => undefined);
      const rates = live.map((r) => figures(sent, r.arrivals).perSecond);
      for (const id of ids) await api.delete(`/v1/webhooks/${id}`);
      await Promise.all(receivers.map((r) => r.close()));
      return { minPerSecond: Math.min(...rates), meanPerSecond: Math.round(rates.reduce((a, b) => a + b, 0) / rates.length) };
    };
    const allAnswer = await rate(false, 'fanout-ok');
    const oneDead = await rate(true, 'fanout-dead');
    await fast.close();
    return {
      burst: { ...burst, cpuMsPerEvent: burst.cpuMsPerSend },
      paced: { offeredPerSecond: PACED_RATE, ...paced, cpuMsPerEvent: paced.cpuMsPerSend },
      allAnswer, oneDead, keptRate: +(oneDead.meanPerSecond / allAnswer.meanPerSecond).toFixed(3),
    };
  } finally {
    await sut.close();
  }
}

/** The events service alone in this process (in-process bus, a data dir of its own), for `work`. */
async function withEventsService<T>(env: Record<string, string>, work: (events: RunningEventsService) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-events-'));
  const bus = new InProcessBus();
  const config = loadConfig({ SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK: 'true', ...env });
  const events = await startEventsService({ bus, config, logger: createLogger({ service: 'bench', level: 'error' }) });
  try {
    return await work(events);
  } finally {
    await events.close();
    await bus.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Deliveries/s straight from the queue to a fast receiver: the events service's own ceiling. */
async function dispatcherRate() {
  return withEventsService({}, async (events) => {
    const fast = await receiver();
    try {
      const accountId = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
      const webhook = await events.api.createWebhook({ accountId, body: { url: fast.url } });
      const run = async (label: string, count: number, sessions: number) => {
        const started = performance.now();
        const cpu = process.cpuUsage();
        const now = Date.now();
        for (let i = 0; i < count; i++) {
          const event = { id: `evt_${label}${String(i).padStart(20, '0')}`, type: 'message.received', timestamp: new Date(now).toISOString(), data: { sessionId: `ses_${i % sessions}`, text: `${label} ${i}` } };
          events.deliveries.enqueue(webhook.webhookId, accountId, event as never, `ses_${i % sessions}`, now);
        }
        const arrived = () => [...fast.arrivals.keys()].filter((text) => text.startsWith(`${label} `)).length;
        await eventually(async () => arrived(), (n) => n >= count, 120_000);
        const seconds = (performance.now() - started) / 1000;
        const used = process.cpuUsage(cpu);
        return { deliveries: count, sessions, perSecond: Math.round(count / seconds), cpuMsPerDelivery: +((used.user + used.system) / 1000 / count).toFixed(3) };
      };
      await run('warm', 500, 8);
      return { oneSession: await run('one', 5_000, 1), eightSessions: await run('eight', 5_000, 8) };
    } finally {
      await fast.close();
    }
  });
}

/** 10,000 deliveries (one session each) to a closed port, each attempted once and waiting an hour for its retry. */
async function dispatcherMemory() {
  return withEventsService({ SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE_MS: '3600000' }, async (events) => {
      const accountId = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
      const port = await closedLoopbackPort();
      const webhook = await events.api.createWebhook({ accountId, body: { url: `http://127.0.0.1:${port}/hook` } });
      const gc = (globalThis as { gc?: () => void }).gc;
      gc?.();
      const before = process.memoryUsage();
      const now = Date.now();
      for (let i = 0; i < PENDING; i++) {
        const id = `evt_${String(i).padStart(26, '0')}`;
        events.deliveries.enqueue(webhook.webhookId, accountId, { id, type: 'webhook.test', timestamp: new Date().toISOString(), data: { webhookId: webhook.webhookId } }, `s${i}`, now);
      }
      const started = performance.now();
      // One session each, so every delivery is attempted once (refused) and then waits an hour.
      await eventually(async () => events.deliveries.headsDue().filter((head) => head.at <= Date.now()).length, (n) => n === 0, 120_000);
      gc?.();
      const after = process.memoryUsage();
      const mb = (n: number) => +(n / 1024 / 1024).toFixed(1);
      return {
        pending: events.deliveries.pendingCount(),
        firstPassSeconds: +((performance.now() - started) / 1000).toFixed(2),
        heapUsedMb: { before: mb(before.heapUsed), after: mb(after.heapUsed) },
        rssMb: { before: mb(before.rss), after: mb(after.rss) },
      };
  });
}

const memory = await dispatcherMemory();
const dispatcher = await dispatcherRate();
const emulator = await startEmulatorProcess();
let loadGenerator, network;
try {
  loadGenerator = await loadGeneratorCeiling(emulator);
  network = await networkToWebhookAndSse(emulator);
} finally {
  await emulator.stop();
}
const { burst, paced, ...fanout } = network;
const strip = <T extends { cpuMsPerSend?: unknown }>({ cpuMsPerSend: _, ...rest }: T) => rest;
process.stdout.write(`${JSON.stringify({ messages: MESSAGES, loadGeneratorRawBaileys: loadGenerator, burst: strip(burst), paced: strip(paced), dispatcherAlone: dispatcher, ...fanout, dispatcherMemory: memory }, null, 2)}\n`);
process.exit(0);
