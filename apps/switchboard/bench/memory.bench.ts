/**
 * `npm run bench:memory -w @switchboard/app` (also part of `npm run bench`): does the embedded
 * process give memory back after a load? Each load runs against a fresh `npm start` child (the
 * emulator in a process of its own, so only Switchboard is measured), with its resident memory
 * (VmRSS) read from /proc before, at the peak and SETTLE seconds after the load stopped:
 *   big-bodies  twelve ~20 MiB JSON bodies at once: half valid 15 MiB videos (base64), half
 *               15 MiB images refused with 422 (over the 5 MiB image cap);
 *   fuzz        a seeded burst of malformed and odd requests (odd-requests.ts), 32 in flight.
 * The goal: RSS one minute after the load within 1.3x of the figure before it. First, `idle`: a
 * fresh process with no session, its RSS every 10 s for SETTLE seconds after it answered (goal
 * <= 150 MiB once start-up's garbage is collected).
 * Env: BENCH_LOADS (default `big-bodies,fuzz`), BENCH_SETTLE_SECONDS (60), BENCH_FUZZ_REQUESTS
 * (3000), BENCH_BIG_BODIES (12), BENCH_NODE_OPTIONS / BENCH_ENV (JSON) for the process under
 * test, BENCH_HEAPSNAPSHOT_DIR: write a heap snapshot of the process there at the end of each
 * load (what it still holds; open it in Chrome DevTools' Memory tab).
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ApiClient, eventually } from '../test/support/http.js';
import { startEmulatorProcess, startSwitchboardUnderTest } from '../test/support/harness.js';
import { oddRequest, seeded, sendOdd } from './odd-requests.js';
import type { Target } from './odd-requests.js';
import { heapMiB, resetPeakResident, residentMiB } from './process-metrics.js';
import { runLoad } from './stats.js';

const LOADS = (process.env['BENCH_LOADS'] ?? 'big-bodies,fuzz').split(',');
const SETTLE_SECONDS = Number(process.env['BENCH_SETTLE_SECONDS'] ?? 60);
const FUZZ_REQUESTS = Number(process.env['BENCH_FUZZ_REQUESTS'] ?? 3000);
const BIG_BODIES = Number(process.env['BENCH_BIG_BODIES'] ?? 12);
const SNAPSHOT_DIR = process.env['BENCH_HEAPSNAPSHOT_DIR'];
const GOAL = 1.3;
const nodeOptions = [process.env['BENCH_NODE_OPTIONS'], SNAPSHOT_DIR && `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${SNAPSHOT_DIR}`].filter(Boolean).join(' ');
const env: Record<string, string> = {
  LOG_LEVEL: 'error',
  ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
  ...(JSON.parse(process.env['BENCH_ENV'] ?? '{}') as Record<string, string>),
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An MP4 (`ftyp` box, then an `mdat` box of random bytes) of about `size` bytes. */
function mp4OfSize(size: number): Buffer {
  const ftyp = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(4), Buffer.from('mp42isom')]);
  const mdat = Buffer.alloc(8);
  mdat.writeUInt32BE(size - ftyp.length, 0);
  mdat.write('mdat', 4, 'latin1');
  return Buffer.concat([ftyp, mdat, randomBytes(size - ftyp.length - mdat.length)]);
}

/** `npm start` with a linked session: the target of the loads. */
async function linkedSwitchboard(phone: string) {
  const emulator = await startEmulatorProcess();
  let output = '';
  const sut = await startSwitchboardUnderTest('embedded', { emulator, env, onOutput: (_name, chunk) => (output = (output + chunk).slice(-5_000)) });
  const api = new ApiClient(sut.url, sut.apiKey);
  const created = await api.post('/v1/sessions', {});
  await sut.emulator.scan(created.body.data.qrCode, phone);
  const sessionId = created.body.data.sessionId as string;
  await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  const { hostname, port } = new URL(sut.url);
  const target: Target = { host: hostname, port: Number(port), apiKey: sut.apiKey, sessionId };
  const stop = async () => {
    await sut.close();
    await emulator.stop();
  };
  return { sut, api, target, stop, output: () => output };
}

type Linked = Awaited<ReturnType<typeof linkedSwitchboard>>;

/** The statuses a load got, counted. */
function tally(statuses: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

async function bigBodies({ api, target }: Linked): Promise<Record<string, number>> {
  const bytes = mp4OfSize(15 * 2 ** 20);
  const media = bytes.toString('base64');
  const statuses = await Promise.all(
    Array.from({ length: BIG_BODIES }, async (_, i) => {
      const mediaType = i % 2 === 0 ? 'video' : 'image';
      const sent = await api.post('/v1/messages/media', { sessionId: target.sessionId, to: `1555444${String(i).padStart(4, '0')}`, mediaType, media });
      return `${mediaType} ${sent.status}`;
    }),
  );
  return tally(statuses);
}

async function fuzz({ target }: Linked): Promise<Record<string, number>> {
  const random = seeded(10);
  const requests = Array.from({ length: FUZZ_REQUESTS }, () => oddRequest(random, target));
  const statuses: string[] = [];
  await runLoad(requests.length, 32, async (i) => void statuses.push(await sendOdd(requests[i]!, target)));
  return tally(statuses);
}

/** Samples VmRSS every 200 ms until stopped: the highest figure seen (VmHWM may be unavailable). */
function rssSampler(pid: number) {
  let highest = residentMiB(pid).rss;
  const timer = setInterval(() => (highest = Math.max(highest, residentMiB(pid).rss)), 200);
  return () => {
    clearInterval(timer);
    return highest;
  };
}

/** Signals the process to write a heap snapshot and waits until the file stops growing. */
async function heapSnapshot(pid: number, dir: string): Promise<string> {
  const existing = new Set(readdirSync(dir));
  process.kill(pid, 'SIGUSR2');
  for (let size = -1; ; await sleep(2_000)) {
    const file = readdirSync(dir).find((name) => name.endsWith('.heapsnapshot') && !existing.has(name));
    if (!file) continue;
    const now = statSync(join(dir, file)).size;
    if (now > 0 && now === size) return join(dir, file);
    size = now;
  }
}

async function measure(name: string, load: (linked: Linked) => Promise<Record<string, number>>, phone: string) {
  const linked = await linkedSwitchboard(phone);
  try {
    const pid = linked.sut.pidOf('switchboard');
    if (pid === undefined) throw new Error('the embedded process is not running');
    // Warm-up: the code paths of a normal day are loaded and JIT-compiled before "before".
    for (let i = 0; i < 50; i++) await linked.api.post('/v1/messages/text', { sessionId: linked.target.sessionId, to: '15554440000', text: `warm-up ${i}` });
    await sleep(5_000);
    const before = { ...residentMiB(pid), ...(await heapMiB(linked.sut.url)) };
    resetPeakResident(pid);
    const highest = rssSampler(pid);
    const started = performance.now();
    const answers = await load(linked);
    const loadSeconds = +((performance.now() - started) / 1000).toFixed(1);
    const peak = Math.max(highest(), residentMiB(pid).peak);
    const settle: number[] = [];
    for (let s = 10; s <= SETTLE_SECONDS; s += 10) {
      await sleep(10_000);
      settle.push(residentMiB(pid).rss);
    }
    const after = { ...residentMiB(pid), ...(await heapMiB(linked.sut.url)) };
    if (SNAPSHOT_DIR) await heapSnapshot(pid, SNAPSHOT_DIR);
    const ratio = +(after.rss / before.rss).toFixed(2);
    return {
      load: name, answers, loadSeconds,
      rssMiB: { before: before.rss, peak, after: after.rss, afterVsBefore: ratio, withinGoal: ratio <= GOAL },
      rssEvery10sAfterMiB: settle,
      heapUsedMiB: { before: before.heapUsed, after: after.heapUsed },
      heapTotalMiB: { before: before.heapTotal, after: after.heapTotal },
      externalMiB: { before: before.external, after: after.external },
    };
  } catch (error) {
    throw new Error(`${name}: ${String(error)}\n--- the process under test printed:\n${linked.output()}`);
  } finally {
    await linked.stop();
  }
}

/** A fresh process with no session: what it holds at rest. */
async function idle() {
  const emulator = await startEmulatorProcess();
  const sut = await startSwitchboardUnderTest('embedded', { env, emulator });
  try {
    const pid = sut.pidOf('switchboard')!;
    const rssEvery10sMiB: number[] = [];
    for (let s = 10; s <= SETTLE_SECONDS; s += 10) {
      await sleep(10_000);
      rssEvery10sMiB.push(residentMiB(pid).rss);
    }
    return { load: 'idle (no session)', rssEvery10sMiB, heapMiB: await heapMiB(sut.url), withinGoal: rssEvery10sMiB.at(-1)! <= IDLE_GOAL_MIB };
  } finally {
    await sut.close();
    await emulator.stop();
  }
}

const IDLE_GOAL_MIB = 150;
const loads = { 'big-bodies': bigBodies, fuzz } as const;
const results: unknown[] = [await idle()];
for (const [i, name] of LOADS.entries()) {
  const load = loads[name as keyof typeof loads];
  if (!load) throw new Error(`unknown load ${name} (big-bodies, fuzz)`);
  results.push(await measure(name, load, `155533300${i}0`));
}
console.log(JSON.stringify({ settleSeconds: SETTLE_SECONDS, goal: `rss after <= ${GOAL} x before`, env, results }, null, 2));
