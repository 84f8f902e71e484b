/**
 * `npm run bench:crash -w @switchboard/app` (also part of `npm run bench`): issue 10's crash case
 * at full size. For each victim a fresh distributed Switchboard (four processes over a private
 * NATS, the emulator in its own process) takes BENCH_CRASH_MESSAGES texts (default 1000) from 24
 * clients at once; the victim dies (SIGKILL; NATS is stopped and started) after a quarter of them
 * were acknowledged and is started again. Per victim and run: acknowledged, shown once, shown
 * twice, repeats, lost, in flight at the kill, restart-to-ready and kill-to-first-ack seconds.
 * BENCH_CRASH_VICTIMS: a comma list of sessions, messaging, nats, messaging+sessions (default all).
 * BENCH_CRASH_RUNS: runs per victim (default 1).
 */
import { crashMidBurst } from '../test/support/crash-burst.js';
import type { CrashFigures, CrashVictim } from '../test/support/crash-burst.js';
import { startDistributed } from '../test/support/harness.js';
import { ApiClient, eventually } from '../test/support/http.js';

const MESSAGES = Number(process.env['BENCH_CRASH_MESSAGES'] ?? 1000);
const RUNS = Number(process.env['BENCH_CRASH_RUNS'] ?? 1);
const VICTIMS = (process.env['BENCH_CRASH_VICTIMS'] ?? 'sessions,messaging,nats,messaging+sessions').split(',') as CrashVictim[];
const IN_FLIGHT = 24;
const CONTACTS = 10;

async function oneRun(victim: CrashVictim, run: number): Promise<CrashFigures> {
  const sut = await startDistributed({ env: { LOG_LEVEL: 'error' } });
  try {
    const api = new ApiClient(sut.url, sut.apiKey);
    const created = await api.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, `1555666${String(run).padStart(4, '0')}`);
    const sessionId = created.body.data.sessionId as string;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
    const contacts = Array.from({ length: CONTACTS }, (_, i) => `1555444${String(run * 100 + i).padStart(4, '0')}`);
    return await crashMidBurst(sut, sessionId, { victim, messages: MESSAGES, inFlight: IN_FLIGHT, contacts, killAfterAcks: Math.floor(MESSAGES / 4) });
  } finally {
    await sut.close();
  }
}

const rows: CrashFigures[] = [];
for (const victim of VICTIMS) {
  for (let run = 0; run < RUNS; run++) {
    const figures = await oneRun(victim, run);
    console.error(`${victim} run ${run + 1}: ${JSON.stringify(figures)}`);
    rows.push(figures);
  }
}
console.table(rows.map((r) => ({
  victim: r.victim,
  acknowledged: r.acknowledged,
  shownOnce: r.shownOnce,
  shownTwice: r.shownTwice,
  repeats: r.repeats,
  repeatBound: r.repeatBound,
  lost: r.lost,
  failed: r.failed,
  inFlightAtKill: r.inFlightAtKill,
  restartToReadyS: r.restartToReadySeconds,
  killToFirstAckS: r.killToFirstAckSeconds,
})));
console.log(JSON.stringify({ messages: MESSAGES, inFlight: IN_FLIGHT, runs: rows }, null, 2));
