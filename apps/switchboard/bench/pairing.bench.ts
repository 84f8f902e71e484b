/**
 * `npm run bench:pairing -w @switchboard/app` (after `npm run build`; part of `npm run bench`):
 * issue 17's pairing and reconnect cost. An embedded Switchboard on the emulator (its own process)
 * pairs BENCH_PAIRINGS sessions (default 20) one after another, each from `POST /v1/sessions` to
 * `connected` through a QR scan; then the emulator cuts every connection at once and each session
 * resumes from its stored credentials (Noise handshake, certificate chain, login). Prints server
 * CPU per pairing and per reconnect (from /proc, less the process's idle CPU over the same time,
 * measured just before; with it beside), and the emulator's own CPU per operation. A second row
 * pairs BENCH_CODE_PAIRINGS sessions (default 5) by code instead (`phoneNumber` on the create, the
 * fake phone enters the code), with the time from entering the code to the API showing the
 * session `connected` (min, median, max).
 * BENCH_PROFILE_DIR: also profile the server over each measured window (pairing.cpuprofile,
 * reconnect.cpuprofile there, for Chrome DevTools) and print its top functions; the attached
 * inspector about doubles the CPU figures of that run, so read them from a run without it.
 */
import { join } from 'node:path';
import { ApiClient, eventually } from '../test/support/http.js';
import { startEmulatorProcess, startSwitchboardUnderTest } from '../test/support/harness.js';
import { InspectorProfiler } from './cpu-profile.js';
import { processCpuMs } from './process-metrics.js';

const PAIRINGS = Number(process.env['BENCH_PAIRINGS'] ?? 20);
const CODE_PAIRINGS = Number(process.env['BENCH_CODE_PAIRINGS'] ?? 5);
const PROFILE_DIR = process.env['BENCH_PROFILE_DIR'];
/** Baileys' work after login (pre-key count and upload, passive, digest) ends within this. */
const SETTLE_MS = 1_500;
const IDLE_PROBE_MS = 3_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (value: number) => +value.toFixed(1);

const emulatorProcess = await startEmulatorProcess();
const env: Record<string, string> = { LOG_LEVEL: 'error', ...(PROFILE_DIR ? { NODE_OPTIONS: '--inspect=127.0.0.1:0' } : {}) };
let inspectorUrl: string | undefined;
const onOutput = (_name: string, chunk: string) => (inspectorUrl ??= /Debugger listening on (ws:\/\/\S+)/.exec(chunk)?.[1]);
const sut = await startSwitchboardUnderTest('embedded', { emulator: emulatorProcess, env, onOutput });
let profiler: InspectorProfiler | undefined;
try {
  if (PROFILE_DIR && !inspectorUrl) throw new Error('BENCH_PROFILE_DIR: the server printed no inspector URL');
  if (PROFILE_DIR) profiler = await InspectorProfiler.connect(inspectorUrl!);
  const api = new ApiClient(sut.url, sut.apiKey);
  const pid = sut.pidOf('switchboard')!;

  /** Server and emulator CPU while `run` ran and the work it left settled, in ms per operation. */
  const perOperation = async (name: string, idleMsPerS: number, run: () => Promise<void>, operations = PAIRINGS) => {
    const [server0, emulator0, t0] = [processCpuMs(pid), (await sut.emulator.health()).process.cpuMs, performance.now()];
    const measured = async () => {
      await run();
      await sleep(SETTLE_MS);
    };
    await (profiler ? profiler.during(join(PROFILE_DIR!, `${name}.cpuprofile`), measured) : measured());
    const [serverMs, elapsedMs] = [processCpuMs(pid) - server0, performance.now() - t0];
    return {
      serverCpuMs: round((serverMs - (idleMsPerS * elapsedMs) / 1000) / operations),
      serverCpuMsWithIdle: round(serverMs / operations),
      emulatorCpuMs: round(((await sut.emulator.health()).process.cpuMs - emulator0) / operations),
    };
  };

  // Polled on the emulator, not the API: the server's CPU is then the pairings' and reconnects' alone.
  const online = (phone: string) => eventually(() => sut.emulator.device(phone), (d) => d.online && d.connections === 1);
  const pair = async (phone: string) => {
    const created = await api.post('/v1/sessions', {});
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
    await sut.emulator.scan(created.body.data.qrCode, phone);
    await online(phone);
    await eventually(() => api.get(`/v1/sessions/${created.body.data.sessionId}`), (r) => r.body?.data?.status === 'connected');
  };
  /** Pairing by code: the code is entered at once (no person types it); timed from then to `connected` on the API. */
  const codeToConnectedMs: number[] = [];
  const pairByCode = async (phone: string) => {
    const created = await api.post('/v1/sessions', { phoneNumber: phone });
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
    const enteredAt = performance.now();
    await sut.emulator.pair(phone, created.body.data.pairingCode);
    await eventually(() => api.get(`/v1/sessions/${created.body.data.sessionId}`), (r) => r.body?.data?.status === 'connected', 30_000, 10);
    codeToConnectedMs.push(performance.now() - enteredAt);
  };
  const phones = Array.from({ length: PAIRINGS + 2 }, (_, i) => `1555321${String(i).padStart(4, '0')}`);
  const codePhones = Array.from({ length: CODE_PAIRINGS }, (_, i) => `1555322${String(i).padStart(4, '0')}`);
  // Two pairings first: the JIT and the lazy imports of the first one are not what a pairing costs.
  for (const phone of phones.slice(0, 2)) await pair(phone);
  await sleep(SETTLE_MS);
  const idle0 = processCpuMs(pid);
  await sleep(IDLE_PROBE_MS);
  const idleMsPerS = ((processCpuMs(pid) - idle0) * 1000) / IDLE_PROBE_MS;
  const measured = phones.slice(2);
  const pairing = await perOperation('pairing', idleMsPerS, async () => {
    for (const phone of measured) await pair(phone);
  });
  const reconnect = await perOperation('reconnect', idleMsPerS, async () => {
    await Promise.all(measured.map((phone) => sut.emulator.drop(phone)));
    await Promise.all(measured.map(online));
  });
  const codePairing = await perOperation('code-pairing', idleMsPerS, async () => {
    for (const phone of codePhones) await pairByCode(phone);
  }, CODE_PAIRINGS);
  const sorted = [...codeToConnectedMs].sort((a, b) => a - b);
  const codeToConnected = { minMs: round(sorted[0] ?? NaN), medianMs: round(sorted[Math.floor(sorted.length / 2)] ?? NaN), maxMs: round(sorted.at(-1) ?? NaN) };
  console.table({ pairing, reconnect, codePairing: { ...codePairing, ...codeToConnected } });
  console.log(JSON.stringify({ sessions: PAIRINGS, codeSessions: CODE_PAIRINGS, serverIdleCpuMsPerS: round(idleMsPerS), pairing, reconnect, codePairing, codeToConnected }));
} finally {
  profiler?.close();
  await sut.close();
  await emulatorProcess.stop();
}
