/**
 * `npm run bench:restart -w @switchboard/app` (also part of `npm run bench`): issue 17's restart
 * and idle figures. An embedded Switchboard (one process) with the emulator in its own process:
 * - idle with 0 sessions: the server's CPU per second over 20 s;
 * - the largest size of BENCH_RESTART_SESSIONS (comma list, default `500,1000,2000`) is linked
 *   once; each smaller size is reached by deleting sessions (linking is the slow part);
 * - per size, largest first: SIGKILL of the process, start again, and the seconds from the kill to
 *   `/readyz` 200 and to every device online at the emulator; the server's CPU spent resuming
 *   (its CPU from exec to all online, less what a start with 0 sessions takes up to ready) and per
 *   session; then its idle CPU per second over 20 s with that many sessions connected, and its RSS.
 * BENCH_RESTART_CONCURRENCY (comma list): restart each size once per value of
 * SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY (default: the process's own default, one restart).
 * BENCH_RESTART_PROFILE_DIR: the restarted processes run with `--cpu-prof` into that directory (a
 * profile is written when the process exits cleanly: the last one, at the end of the run).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inParallel, linkSessions } from './linked-sessions.js';
import type { LinkedSession } from './linked-sessions.js';
import { processCpuMs, residentMiB } from './process-metrics.js';
import { startEmbedded, startEmulatorProcess } from '../test/support/harness.js';
import type { SwitchboardUnderTest } from '../test/support/harness.js';
import { ApiClient } from '../test/support/http.js';

const SIZES = (process.env['BENCH_RESTART_SESSIONS'] ?? '500,1000,2000').split(',').map(Number).sort((a, b) => b - a);
const CONCURRENCIES = (process.env['BENCH_RESTART_CONCURRENCY'] ?? '').split(',').filter(Boolean);
const PROFILE_DIR = process.env['BENCH_RESTART_PROFILE_DIR'];
const profiling: Record<string, string> = PROFILE_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${PROFILE_DIR}` } : {};
const IDLE_S = 20;
/**
 * Left to the process before its idle CPU is read: the start-up leaves garbage that a forced full
 * GC (the memory reclaimer, ~10 s after the start) and V8's memory reducer collect after it.
 */
const SETTLE_MS = 30_000;
/** Polls the emulator until `count` devices are online; answers when that was first seen. */
async function untilOnline(sut: SwitchboardUnderTest, count: number, timeoutMs: number): Promise<number> {
  const giveUpAt = performance.now() + timeoutMs;
  for (;;) {
    const { online } = await sut.emulator.health();
    if (online === count) return performance.now();
    if (performance.now() > giveUpAt) throw new Error(`${online} of ${count} devices online after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The server's CPU per second (ms/s) over `seconds`, nothing asked of it meanwhile. */
async function idleCpuMsPerS(pid: number, seconds: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  const before = processCpuMs(pid);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  return +((processCpuMs(pid) - before) / seconds).toFixed(2);
}

/** SIGKILL, start again; seconds from the kill to ready and to every device online, CPU of the new process. */
async function crashAndRestart(sut: SwitchboardUnderTest, sessions: number, env: Record<string, string>) {
  const emulatorCpuBefore = (await sut.emulator.health()).process.cpuMs;
  const killedAt = performance.now();
  await sut.crashAndRestartSessions(env);
  const readyAt = performance.now();
  const pid = sut.pidOf('switchboard')!;
  const cpuAtReadyMs = processCpuMs(pid);
  const onlineAt = await untilOnline(sut, sessions, 600_000);
  const cpuAtOnlineMs = processCpuMs(pid);
  const emulatorCpuMs = (await sut.emulator.health()).process.cpuMs - emulatorCpuBefore;
  return { pid, readyS: (readyAt - killedAt) / 1000, allOnlineS: (onlineAt - killedAt) / 1000, cpuAtReadyMs, cpuAtOnlineMs, emulatorCpuMs };
}

/** Every device online with exactly one connection (no overlap after the kill). */
async function everyDeviceOnlineOnce(sut: SwitchboardUnderTest, linked: readonly LinkedSession[]): Promise<number> {
  const devices = await inParallel(linked, ({ phone }) => sut.emulator.device(phone));
  return devices.filter((d) => !d.online || d.connections !== 1).length;
}

const emulatorDir = mkdtempSync(join(tmpdir(), 'sb-bench-emulator-'));
const emulator = await startEmulatorProcess(emulatorDir);
const sut = await startEmbedded({ emulator, env: { LOG_LEVEL: 'error' } });
const rows: Record<string, unknown>[] = [];
try {
  const api = new ApiClient(sut.url, sut.apiKey);
  const idleAtZero = await idleCpuMsPerS(sut.pidOf('switchboard')!, IDLE_S);
  // What a start costs with nothing to resume: subtracted from each restart's CPU below.
  const empty = await crashAndRestart(sut, 0, {});
  console.error(JSON.stringify({ sessions: 0, readyS: +empty.readyS.toFixed(2), cpuAtReadyS: +(empty.cpuAtReadyMs / 1000).toFixed(2), idleCpuMsPerS: idleAtZero }));
  rows.push({ sessions: 0, readyS: +empty.readyS.toFixed(2), idleCpuMsPerS: idleAtZero });

  const linkStarted = performance.now();
  const phones = Array.from({ length: SIZES[0]! }, (_, i) => `1557${String(i).padStart(7, '0')}`);
  const { linked: all, rescans, retries } = await linkSessions(sut, phones);
  let linked = all;
  const linkS = (performance.now() - linkStarted) / 1000;
  console.error(`linked ${linked.length} sessions in ${linkS.toFixed(1)} s (${rescans} QR codes the emulator could not read the first time, ${retries} creates retried after a 502)`);
  for (const size of SIZES) {
    const extra = linked.slice(size);
    await inParallel(extra, async ({ sessionId }) => {
      const deleted = await api.delete(`/v1/sessions/${sessionId}`);
      if (deleted.status !== 200) throw new Error(`delete answered ${deleted.status}: ${JSON.stringify(deleted.body)}`);
    });
    linked = linked.slice(0, size);
    await untilOnline(sut, size, 120_000);
    for (const concurrency of CONCURRENCIES.length > 0 ? CONCURRENCIES : [undefined]) {
      const env: Record<string, string> = { ...profiling, ...(concurrency ? { SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY: concurrency } : {}) };
      const restart = await crashAndRestart(sut, size, env);
      const notOnlineOnce = await everyDeviceOnlineOnce(sut, linked);
      const resumeCpuMs = restart.cpuAtOnlineMs - empty.cpuAtReadyMs;
      const idle = await idleCpuMsPerS(restart.pid, IDLE_S);
      const row = {
        sessions: size,
        concurrency: concurrency ?? 'default',
        readyS: +restart.readyS.toFixed(2),
        allOnlineS: +restart.allOnlineS.toFixed(2),
        resumeCpuS: +(resumeCpuMs / 1000).toFixed(2),
        cpuMsPerSession: +(resumeCpuMs / size).toFixed(1),
        emulatorCpuMsPerSession: +(restart.emulatorCpuMs / size).toFixed(1),
        idleCpuMsPerS: idle,
        rssMiB: residentMiB(restart.pid).rss,
        devicesNotOnlineOnce: notOnlineOnce,
      };
      console.error(JSON.stringify(row));
      rows.push(row);
    }
  }
} finally {
  await sut.close();
  await emulator.stop();
  rmSync(emulatorDir, { recursive: true, force: true });
}
console.table(rows);
