/**
 * `npm run bench:reads -w @switchboard/app`: the GET endpoints' speed beside a bare fastify handler
 * serving the same bodies, in one run. Load comes from autocannon (BENCH_READ_CONNECTIONS
 * connections, default 32, for BENCH_READ_SECONDS each, default 5), in rounds (BENCH_READ_ROUNDS,
 * default 2) alternating Switchboard and the bare app. Server CPU per request is read from /proc
 * (summed over every process of the mode), and so is the load generator's own: the bare app's
 * rate shows what the generator can drive, so a Switchboard rate well below it is Switchboard's.
 * `/healthz` (no key, no service) is measured too: the gateway's own cost over fastify's.
 * Calibration rows (BENCH_READ_CALIBRATION_US, default `25,50,100`; empty for none), run with the
 * message lookup: the bare app
 * again with its handler burning that many µs of CPU per request, against the bare app as it is:
 * the ratio a handler doing only that much work of its own keeps on this machine (the kernel's
 * socket write costs more per request the slower the server, so the ratio is not linear in CPU).
 * BENCH_MODES: `embedded,distributed` (default) or either alone. BENCH_READ_ENDPOINTS: some of
 * `message,session,sessionList,healthz` (default all). BENCH_NODE_OPTIONS: NODE_OPTIONS for
 * the processes under test. BENCH_PROFILE_DIR: also profile every process under test over each
 * measured Switchboard window (`<mode>-<endpoint>-round<n>-<process>.cpuprofile`, top functions
 * printed); the inspector raises the CPU figures of that run, so read them from a run without it.
 */
import autocannon from 'autocannon';
import { ApiClient, eventually } from '../test/support/http.js';
import { startEmulatorProcess, startSwitchboardUnderTest } from '../test/support/harness.js';
import type { Mode, SwitchboardUnderTest } from '../test/support/harness.js';
import { join } from 'node:path';
import { startBareFastify } from './bare-fastify-process.js';
import { InspectorProfiler } from './cpu-profile.js';
import { processCpuMs } from './process-metrics.js';

const SECONDS = Number(process.env['BENCH_READ_SECONDS'] ?? 5);
const ROUNDS = Number(process.env['BENCH_READ_ROUNDS'] ?? 2);
const CONNECTIONS = Number(process.env['BENCH_READ_CONNECTIONS'] ?? 32);
const MODES = (process.env['BENCH_MODES'] ?? 'embedded,distributed').split(',').filter(Boolean) as Mode[];
const NODE_OPTIONS = process.env['BENCH_NODE_OPTIONS'];
const PROFILE_DIR = process.env['BENCH_PROFILE_DIR'];
const ENDPOINT_NAMES = ['message', 'session', 'sessionList', 'healthz'];
const ENDPOINTS = listOf('BENCH_READ_ENDPOINTS', ENDPOINT_NAMES.join(','), (name) => ENDPOINT_NAMES.includes(name));
const CALIBRATION_US = listOf('BENCH_READ_CALIBRATION_US', '25,50,100', (us) => Number(us) > 0).map(Number);
const LISTED_SESSIONS = 10;

/** A comma-separated list from the environment, every item checked: a typo stops the bench at once. */
function listOf(variable: string, fallback: string, valid: (item: string) => boolean): string[] {
  const items = (process.env[variable] ?? fallback).split(',').filter(Boolean);
  const wrong = items.filter((item) => !valid(item));
  if (wrong.length > 0) throw new Error(`${variable}: ${wrong.join(', ')} not understood`);
  return items;
}

interface Target {
  url: string;
  headers: Record<string, string>;
  pids: number[];
}

interface Figures {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  serverCpuUsPerRequest: number;
  generatorCpuUsPerRequest: number;
}

/** One autocannon run against `path`: its rate, latency, and the CPU server and generator spent per request. */
async function load(target: Target, path: string): Promise<Figures> {
  const serverBefore = target.pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const ownBefore = process.cpuUsage();
  const result = await autocannon({ url: `${target.url}${path}`, headers: target.headers, connections: CONNECTIONS, duration: SECONDS });
  const own = process.cpuUsage(ownBefore);
  const serverMs = target.pids.reduce((sum, pid) => sum + processCpuMs(pid), 0) - serverBefore;
  const requests = result.requests.total;
  if (result.non2xx > 0 || result.errors > 0 || requests === 0) {
    throw new Error(`${target.url}${path}: ${result.non2xx} non-2xx answers, ${result.errors} errors in ${requests} requests`);
  }
  return {
    perSecond: Math.round(requests / SECONDS),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    serverCpuUsPerRequest: Math.round((serverMs * 1000) / requests),
    generatorCpuUsPerRequest: Math.round((own.user + own.system) / requests),
  };
}

/** A linked session with one sent text, and pending sessions up to LISTED_SESSIONS: the paths to read. */
async function readablePaths(sut: SwitchboardUnderTest, phone: string): Promise<Record<string, string>> {
  const api = new ApiClient(sut.url, sut.apiKey);
  const created = await api.post('/v1/sessions', {});
  await sut.emulator.scan(created.body.data.qrCode, phone);
  const sessionId = created.body.data.sessionId as string;
  await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  for (let i = 1; i < LISTED_SESSIONS; i++) await api.post('/v1/sessions', {});
  const sent = await api.post('/v1/messages/text', { sessionId, to: '15559990001', text: 'read me' });
  if (sent.status !== 201) throw new Error(`send answered ${sent.status}`);
  return {
    message: `/v1/messages/${sent.body.data.messageId as string}`,
    session: `/v1/sessions/${sessionId}`,
    sessionList: `/v1/sessions?limit=${LISTED_SESSIONS}`,
    // No key, no service, no read model: what the gateway's own hooks cost over fastify.
    healthz: '/healthz',
  };
}

/** The bodies Switchboard answers on `paths`, by path: what the bare app serves. */
async function bodiesOf(sut: SwitchboardUnderTest, paths: Record<string, string>): Promise<Record<string, unknown>> {
  const api = new ApiClient(sut.url, sut.apiKey);
  const bodies: Record<string, unknown> = {};
  for (const path of Object.values(paths)) bodies[path.split('?')[0]!] = (await api.get(path)).body;
  return bodies;
}

/** The bare app as a load target (its own process's CPU beside it). */
function bareTarget(bare: { url: string; pid: number }): Target {
  return { url: bare.url, headers: {}, pids: [bare.pid] };
}

/** The bare app with `workUs` of CPU per request in its handler, against the bare app as it is, on `path`. */
async function calibration(mode: Mode, bodies: Record<string, unknown>, path: string, bare: Target, workUs: number) {
  const working = await startBareFastify(bodies, workUs);
  const target = bareTarget(working);
  try {
    const rows: Record<string, unknown>[] = [];
    await load(target, path);
    for (let round = 1; round <= ROUNDS; round++) {
      const ours = await load(target, path);
      const theirs = await load(bare, path);
      // The same bodies and path as the message lookup; only the handler's work differs.
      rows.push({ mode, endpoint: `bare+${workUs}µs`, round, workingBare: ours, bareFastify: theirs, ratio: +(ours.perSecond / theirs.perSecond).toFixed(2) });
    }
    return rows;
  } finally {
    working.stop();
  }
}

async function measure(mode: Mode) {
  const emulator = await startEmulatorProcess();
  const nodeOptions = [NODE_OPTIONS, PROFILE_DIR ? '--inspect=127.0.0.1:0' : undefined].filter(Boolean).join(' ');
  const inspectorUrls = new Map<string, string>();
  const onOutput = (name: string, chunk: string) => {
    const url = /Debugger listening on (ws:\/\/\S+)/.exec(chunk)?.[1];
    if (url && !inspectorUrls.has(name)) inspectorUrls.set(name, url);
  };
  const sut = await startSwitchboardUnderTest(mode, { emulator, env: { LOG_LEVEL: 'error', ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) }, onOutput });
  const profilers = await Promise.all([...inspectorUrls].map(async ([name, url]) => ({ name, profiler: await InspectorProfiler.connect(url) })));
  /** `run` under every process's profiler (none without BENCH_PROFILE_DIR). */
  const profiled = <T>(window: string, run: () => Promise<T>): Promise<T> =>
    profilers.reduce<() => Promise<T>>((inner, { name, profiler }) => () => profiler.during(join(PROFILE_DIR!, `${mode}-${window}-${name}.cpuprofile`), inner), run)();
  try {
    const paths = await readablePaths(sut, mode === 'embedded' ? '15557771001' : '15557771002');
    const bodies = await bodiesOf(sut, paths);
    const bare = await startBareFastify(bodies);
    const bareLoad = bareTarget(bare);
    const processes = mode === 'embedded' ? ['switchboard' as const] : (['gateway', 'quota', 'sessions', 'messaging', 'events'] as const);
    const switchboard: Target = { url: sut.url, headers: { authorization: `Bearer ${sut.apiKey}` }, pids: processes.map((name) => sut.pidOf(name)!) };
    try {
      const rows: Record<string, unknown>[] = [];
      for (const [endpoint, path] of Object.entries(paths)) {
        if (!ENDPOINTS.includes(endpoint)) continue;
        await load(switchboard, path); // warm-up: JIT, caches
        for (let round = 1; round <= ROUNDS; round++) {
          const ours = await profiled(`${endpoint}-round${round}`, () => load(switchboard, path));
          const theirs = await load(bareLoad, path);
          rows.push({ mode, endpoint, round, switchboard: ours, bareFastify: theirs, ratio: +(ours.perSecond / theirs.perSecond).toFixed(2) });
        }
      }
      if (ENDPOINTS.includes('message')) for (const workUs of CALIBRATION_US) rows.push(...(await calibration(mode, bodies, paths['message']!, bareLoad, workUs)));
      return rows;
    } finally {
      bare.stop();
    }
  } finally {
    for (const { profiler } of profilers) profiler.close();
    await sut.close();
    await emulator.stop();
  }
}

const rows: Record<string, unknown>[] = [];
for (const mode of MODES) rows.push(...(await measure(mode)));
console.log(JSON.stringify({ seconds: SECONDS, connections: CONNECTIONS, rows }, null, 2));
for (const row of rows as { mode: string; endpoint: string; round: number; switchboard?: Figures; workingBare?: Figures; bareFastify: Figures; ratio: number }[]) {
  const measured = (row.switchboard ?? row.workingBare)!;
  console.log(
    `${row.mode.padEnd(11)} ${row.endpoint.padEnd(12)} round ${row.round}: ${measured.perSecond} req/s, ${measured.serverCpuUsPerRequest} µs CPU/req | bare ${row.bareFastify.perSecond} req/s, ${row.bareFastify.serverCpuUsPerRequest} µs | ratio ${row.ratio}`,
  );
}
