/**
 * `npm run bench:send`: what Switchboard costs on top of the chat layer, in one run.
 *   1. raw Baileys `sendMessage` through the emulator (no Switchboard): the ceiling;
 *   2. text sends through the whole pipeline (HTTP → gateway → messaging → quota → sessions →
 *      Baileys → emulator → ack), embedded and distributed, sequential and 16 in flight.
 * Reads are measured by `bench:reads` (autocannon beside a bare fastify app): a fetch loop here
 * was its own bottleneck.
 * The emulator always runs in its own process. BENCH_SENDS (default 1000) sets the count.
 * Raw Baileys is measured twice: plain `sendMessage` (resolves once the frame is written; the
 * issue's baseline, the headline) and `sendMessage` + the network's ack (what our driver waits
 * for before answering `sent`, so the fair floor under a pipeline send).
 * BENCH_MODES: `embedded,distributed` (default), either alone, or empty (none). BENCH_SOAK=N: N sends, 16 in flight,
 * through an embedded Switchboard of their own, its heap read from /metrics and after each full GC. BENCH_NODE_OPTIONS: NODE_OPTIONS
 * for the processes under test (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
 * BENCH_ADDRESSING: how the emulated network names contacts, `lid` (default; the network as it is
 * now), `pn` (as it was), or `lid,pn`: each pipeline mode measured once per addressing in the same
 * run, one after the other (its own emulator and Switchboard each), reported as `embedded` /
 * `embeddedPn` (`distributed` / `distributedPn`) with sends/s, latency and server CPU per send
 * (`emulatorCpuMsPerSend` beside it: the emulator's own, not part of Switchboard's cost).
 * The raw Baileys ceiling is measured in the default addressing only.
 * BENCH_EVENTSTORE: the distributed mode's event stores, `postgres` (default, as the manifests
 * run it: a database of its own, dropped after) or `sqlite` (a file per service on this host).
 * In the distributed mode `natsServerCpuMsPerSend` is the private nats-server's CPU per send, apart
 * from Switchboard's own processes (as the emulator's is).
 * `perSend`: bus requests, appends, SQLite transactions (by database) and PostgreSQL round trips
 * (by schema) per send, from the /metrics of every process that has one (the events service has
 * none in the distributed mode, so its share is not counted there).
 * BENCH_RECEIPTS=off: the contact sends no delivered or read receipts (default on), so a run shows
 * what the receipts of a send cost beside one with them.
 * BENCH_PROFILE_DIR: also profile every process under test over each measured window
 * (`<mode>-<sequential|concurrent>-<process>.cpuprofile`, its top functions printed).
 * Sends go through a lean keep-alive `node:http` client (`json-client.ts`); `bareHttp` is the same
 * client's exchange with a bare fastify app answering the same request with a send's reply body:
 * the part of the API overhead that any HTTP API pays.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closedLoopbackPort } from '@switchboard/bus/testing';
import { ApiClient, eventually } from '../test/support/http.js';
import { startEmulatorProcess, startSwitchboardUnderTest } from '../test/support/harness.js';
import type { Mode, SwitchboardUnderTest } from '../test/support/harness.js';
import type { Addressing } from '@switchboard/chat-emulator';
import { FullGcLog, ownCpuPerTask, processCpuMs, serverCpuPerTask, soak, workPerTask } from './process-metrics.js';
import { InspectorProfiler } from './cpu-profile.js';
import { startBareFastify } from './bare-fastify-process.js';
import { JsonClient } from './json-client.js';
import { linkRawBaileys, sendUntilAcked } from './raw-baileys.js';
import { runLoad } from './stats.js';

const SENDS = Number(process.env['BENCH_SENDS'] ?? 1000);
const CONCURRENCY = 16;
const CONTACT = '15559990001';
const MODES = (process.env['BENCH_MODES'] ?? 'embedded,distributed').split(',').filter(Boolean) as Mode[];
const ADDRESSING = (process.env['BENCH_ADDRESSING'] ?? 'lid').split(',').filter(Boolean) as Addressing[];
for (const a of ADDRESSING) if (a !== 'lid' && a !== 'pn') throw new Error(`BENCH_ADDRESSING: lid and/or pn, got ${a}`);
function eventStoreOf(name: string): 'postgres' | 'sqlite' {
  if (name !== 'postgres' && name !== 'sqlite') throw new Error(`BENCH_EVENTSTORE: postgres or sqlite, got ${name}`);
  return name;
}
/** Where the figures of `mode` in `addressing` go: `embedded` (lid, as before) or `embeddedPn`. */
const resultKey = (mode: Mode, addressing: Addressing) => (addressing === 'lid' ? mode : `${mode}Pn`);
const SOAK = Number(process.env['BENCH_SOAK'] ?? 0);
const NODE_OPTIONS = process.env['BENCH_NODE_OPTIONS'];
const EVENT_STORE = eventStoreOf(process.env['BENCH_EVENTSTORE'] ?? 'postgres');
const PROFILE_DIR = process.env['BENCH_PROFILE_DIR'];
const RECEIPTS = process.env['BENCH_RECEIPTS'] ?? 'on';
if (RECEIPTS !== 'on' && RECEIPTS !== 'off') throw new Error(`BENCH_RECEIPTS: on or off, got ${RECEIPTS}`);
const results: Record<string, unknown> = { sends: SENDS, concurrency: CONCURRENCY, receipts: RECEIPTS };

async function rawBaileys() {
  const emulator = await startEmulatorProcess();
  try {
    const sock = await linkRawBaileys(emulator, '15558880001');
    const jid = `${CONTACT}@s.whatsapp.net`;
    const send = async (i: number) => void (await sock.sendMessage(jid, { text: `raw ${i}` }));
    await runLoad(50, 1, send);
    results['rawBaileys'] = { sequential: await runLoad(SENDS, 1, send), concurrent: await runLoad(SENDS, CONCURRENCY, send) };
    const acked = sendUntilAcked(sock);
    const sendAcked = (i: number) => acked(jid, `raw acked ${i}`);
    // Baileys runs in this process: its CPU per message is this process's (the loop itself is negligible).
    results['rawBaileysAcked'] = {
      sequential: await ownCpuPerTask(SENDS, () => runLoad(SENDS, 1, sendAcked)),
      concurrent: await ownCpuPerTask(SENDS, () => runLoad(SENDS, CONCURRENCY, sendAcked)),
    };
    sock.end(undefined);
  } finally {
    await emulator.stop();
  }
}

const SEND_PATH = '/v1/messages/text';
const SENT_REPLY = { data: { messageId: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K', status: 'sent', timestamp: '2026-11-29T05:00:00.000Z' } };

/** The send client's exchange with a bare fastify app: the same request, a send's reply body. */
async function bareHttp() {
  const bare = await startBareFastify({ [SEND_PATH]: SENT_REPLY });
  const client = new JsonClient(bare.url, { authorization: 'Bearer sbk_bench' });
  try {
    const send = async (i: number) => void (await client.post(SEND_PATH, { sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', to: CONTACT, text: `pipeline ${i}` }));
    await runLoad(50, 1, send);
    results['bareHttp'] = { sequential: await runLoad(SENDS, 1, send) };
  } finally {
    client.close();
    bare.stop();
  }
}

/** A session of `sut` linked as `phone`, and a text send through it. */
async function linkedSender(sut: SwitchboardUnderTest, phone: string) {
  const api = new ApiClient(sut.url, sut.apiKey);
  const created = await api.post('/v1/sessions', {});
  await sut.emulator.scan(created.body.data.qrCode, phone);
  const sessionId = created.body.data.sessionId as string;
  await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  const client = new JsonClient(sut.url, { authorization: `Bearer ${sut.apiKey}` });
  const sender = {
    api,
    send: async (i: number) => {
      const sent = await client.post(SEND_PATH, { sessionId, to: CONTACT, text: `pipeline ${i}` });
      if (sent.status !== 201) throw new Error(`send answered ${sent.status}: ${JSON.stringify(sent.body)}`);
    },
    close: () => client.close(),
  };
  return sender;
}

async function pipeline(mode: Mode, addressing: Addressing) {
  const emulator = await startEmulatorProcess(undefined, addressing);
  const nodeOptions = [NODE_OPTIONS, PROFILE_DIR ? '--inspect=127.0.0.1:0' : undefined].filter(Boolean).join(' ');
  const env: Record<string, string> = { LOG_LEVEL: 'error', ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) };
  const inspectorUrls = new Map<string, string>();
  const onOutput = (name: string, chunk: string) => {
    const url = /Debugger listening on (ws:\/\/\S+)/.exec(chunk)?.[1];
    if (url && !inspectorUrls.has(name)) inspectorUrls.set(name, url);
  };
  // The distributed quota and messaging processes serve /metrics on ports of their own (sessions' has one already).
  const metricsPorts = { quota: await closedLoopbackPort(), messaging: await closedLoopbackPort() };
  const processEnv = {
    quota: { SWITCHBOARD_METRICS_PORT: String(metricsPorts.quota) },
    messaging: { SWITCHBOARD_METRICS_PORT: String(metricsPorts.messaging) },
  };
  const sut = await startSwitchboardUnderTest(mode, { emulator, env, eventStore: EVENT_STORE, onOutput, processEnv });
  // The events service has no metrics port: its bus trips and appends are not counted.
  const metricsUrls = mode === 'embedded'
    ? [`${sut.url}/metrics`]
    : [`${sut.url}/metrics`, sut.cluster!.sessionsReplicas[0]!.metricsUrl, ...Object.values(metricsPorts).map((port) => `http://127.0.0.1:${port}/metrics`)];
  if (RECEIPTS === 'off') await sut.emulator.setContact(CONTACT, { deliverAfterMs: null, readAfterMs: null });
  const profilers = await Promise.all([...inspectorUrls].map(async ([name, url]) => ({ name, profiler: await InspectorProfiler.connect(url) })));
  /** `run` under every process's profiler (none without BENCH_PROFILE_DIR). */
  const profiled = <T>(window: string, run: () => Promise<T>): Promise<T> =>
    profilers.reduce<() => Promise<T>>((inner, { name, profiler }) => () => profiler.during(join(PROFILE_DIR!, `${mode}-${window}-${name}.cpuprofile`), inner), run)();
  try {
    const sender = await linkedSender(sut, `1555777${mode === 'embedded' ? '0001' : '0002'}`);
    await runLoad(50, 1, sender.send);
    // Server CPU summed over every process of the mode (the receipts that follow the last sends
    // included); bus trips, appends, SQLite transactions and PostgreSQL round trips per send from
    // the /metrics of every process that has one.
    const processes = mode === 'embedded' ? ['switchboard' as const] : (['gateway', 'quota', 'sessions', 'messaging', 'events'] as const);
    const pids = Object.fromEntries(processes.map((name) => [name, sut.pidOf(name)!]));
    // The emulator's CPU apart (not Switchboard's cost, but LID addressing changes its work too).
    // The distributed mode's nats-server apart too: not a Switchboard process, but a cost of running
    // the mode (PostgreSQL's own CPU is not counted).
    const natsPid = sut.pidOf('nats-server');
    const cpuPerSendOf = (pid: number, before: number) => +((processCpuMs(pid) - before) / SENDS).toFixed(2);
    const measured = async <T>(run: () => Promise<T>) => {
      const [emulatorBefore, natsBefore] = [processCpuMs(emulator.pid!), natsPid === undefined ? 0 : processCpuMs(natsPid)];
      const figures = await serverCpuPerTask(pids, SENDS, () => workPerTask(metricsUrls, SENDS, run));
      return {
        ...figures,
        ...(natsPid === undefined ? {} : { natsServerCpuMsPerSend: cpuPerSendOf(natsPid, natsBefore) }),
        emulatorCpuMsPerSend: cpuPerSendOf(emulator.pid!, emulatorBefore),
      };
    };
    const sequential = await measured(() => profiled('sequential', () => runLoad(SENDS, 1, sender.send)));
    const concurrent = await measured(() => profiled('concurrent', () => runLoad(SENDS, CONCURRENCY, sender.send)));
    results[resultKey(mode, addressing)] = { addressing, sequential, concurrent };
    sender.close();
  } finally {
    for (const { profiler } of profilers) profiler.close();
    await sut.close();
    await emulator.stop();
  }
}

/**
 * BENCH_SOAK sends through an embedded Switchboard of its own, with `gc-probe.js` preloaded so
 * the live heap after forced full GCs can be read from its output; the throughput runs above stay
 * free of those GCs.
 */
async function embeddedSoak() {
  const emulator = await startEmulatorProcess();
  const fullGcs = new FullGcLog();
  const probe = fileURLToPath(new URL('./gc-probe.js', import.meta.url));
  const env = { LOG_LEVEL: 'error', NODE_OPTIONS: `--expose-gc --import=${probe} ${NODE_OPTIONS ?? ''}`.trim() };
  const sut = await startSwitchboardUnderTest('embedded', { emulator, env, onOutput: (_process, chunk) => fullGcs.read(chunk) });
  try {
    const sender = await linkedSender(sut, '15557770003');
    await runLoad(50, 1, sender.send);
    results['embeddedSoak'] = { inFlight: CONCURRENCY, ...(await soak(sut.url, SOAK, CONCURRENCY, sender.send, fullGcs)) };
    sender.close();
  } finally {
    await sut.close();
    await emulator.stop();
  }
}

await rawBaileys();
await bareHttp();
for (const mode of MODES) for (const addressing of ADDRESSING) await pipeline(mode, addressing);
if (SOAK > 0) await embeddedSoak();

type Figures = { perSecond: number; p50Ms: number; p99Ms: number };
type Pair = { sequential: Figures; concurrent: Figures };
const raw = results['rawBaileys'] as Pair;
const acked = results['rawBaileysAcked'] as Pair;
const bareExchange = (results['bareHttp'] as { sequential: Figures }).sequential;
const ratio = (a: number, b: number) => +(a / b).toFixed(2);
const minus = (a: number, b: number) => +(a - b).toFixed(2);
for (const key of MODES.flatMap((mode) => ADDRESSING.map((addressing) => resultKey(mode, addressing)))) {
  const m = results[key] as Pair;
  results[`${key}Summary`] = {
    sequentialVsRawBaileys: ratio(m.sequential.perSecond, raw.sequential.perSecond),
    concurrentVsRawBaileys: ratio(m.concurrent.perSecond, raw.concurrent.perSecond),
    apiOverheadP50Ms: minus(m.sequential.p50Ms, raw.sequential.p50Ms),
    sequentialVsRawBaileysAcked: ratio(m.sequential.perSecond, acked.sequential.perSecond),
    concurrentVsRawBaileysAcked: ratio(m.concurrent.perSecond, acked.concurrent.perSecond),
    apiOverheadOverAckedP50Ms: minus(m.sequential.p50Ms, acked.sequential.p50Ms),
    // Of which a bare HTTP exchange with the same client, which any HTTP API pays.
    bareHttpExchangeP50Ms: bareExchange.p50Ms,
  };
}
console.log(JSON.stringify(results, null, 2));
