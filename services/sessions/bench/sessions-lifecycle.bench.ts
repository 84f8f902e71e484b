import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ulid } from 'ulid';
import { InProcessBus } from '@switchboard/bus';
import { QuotaSubjects, SessionsSubjects } from '@switchboard/contracts';
import type { ReplyOf, RequestInput, SubjectContract } from '@switchboard/contracts';
import { loadConfig } from '@switchboard/service-kit';
import { createLogger } from '@switchboard/telemetry';
import { startSessionsService } from '../src/service.js';
import { spawnEmulator } from './emulator-process.js';

// Issue 5's figures: create-to-QR latency, scan-to-connected latency, and how long N connected
// sessions take to come back after a restart (emulator in its own process, service in this one).
// `npm run bench:lifecycle -w @switchboard/sessions` (N from SESSIONS_BENCH_N, default 100).

const N = Number(process.env['SESSIONS_BENCH_N'] ?? 100);
const emulator = await spawnEmulator();
const bus = new InProcessBus();
const dataDir = mkdtempSync(join(tmpdir(), 'sb-sessions-bench-'));
const config = loadConfig({ SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_CHAT_NETWORK: 'emulator', SWITCHBOARD_EMULATOR_URL: emulator.wsUrl });
const logger = createLogger({ service: 'sessions', level: 'warn' });
// An enterprise account's slot answers: this file is built with the service, and the service's
// build must not depend on another service (the tests run the real quota service).
await bus.subscribe(QuotaSubjects.reserveSession.subject, () => ({ limit: null, used: 0 }));
await bus.subscribe(QuotaSubjects.releaseSession.subject, () => ({ released: true, limit: null, used: 0 }));
const start = () => startSessionsService({ bus, config, logger });

async function call<C extends SubjectContract>(contract: C, data: RequestInput<C>): Promise<ReplyOf<C>> {
  return contract.reply.parse((await bus.request(contract.subject, data, { timeoutMs: 60_000 })).data) as ReplyOf<C>;
}
async function control(method: string, path: string, body?: unknown): Promise<unknown> {
  const init = body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
  const response = await fetch(`${emulator.controlUrl}${path}`, init);
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
  return response.json();
}
async function until(probe: () => Promise<boolean>): Promise<void> {
  while (!(await probe())) await new Promise((resolve) => setTimeout(resolve, 10));
}
const online = async () => ((await control('GET', '/health')) as { online: number }).online;
const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))] ?? NaN;
const ms = (value: number) => `${value.toFixed(0)} ms`;

let service = await start();
const accountId = `acc_${ulid()}`;
const createMs: number[] = [];
const connectMs: number[] = [];
for (let i = 0; i < N; i++) {
  const t0 = performance.now();
  const { sessionId, qrCode } = await call(SessionsSubjects.create, { accountId });
  createMs.push(performance.now() - t0);
  const t1 = performance.now();
  await control('POST', '/scan', { qrCode, phone: `1666${String(i).padStart(7, '0')}` });
  await until(async () => (await call(SessionsSubjects.get, { accountId, sessionId })).status === 'connected');
  connectMs.push(performance.now() - t1);
}
await until(async () => (await online()) === N);

const t2 = performance.now();
await service.close();
await until(async () => (await online()) === 0);
const t3 = performance.now();
service = await start();
const startedMs = performance.now() - t3;
await until(async () => (await online()) === N);
const backMs = performance.now() - t3;

console.log(`sessions: ${N}`);
console.log(`create → QR (bus round trip): p50 ${ms(pct(createMs, 50))}, p99 ${ms(pct(createMs, 99))}`);
console.log(`scan → connected (as GET shows it): p50 ${ms(pct(connectMs, 50))}, p99 ${ms(pct(connectMs, 99))}`);
console.log(`restart: service started in ${ms(startedMs)}; all ${N} sessions online again ${ms(backMs)} after start (stop took ${ms(t3 - t2)})`);

await service.close();
await bus.close();
await emulator.stop();
rmSync(dataDir, { recursive: true, force: true });
// Baileys leaves 30–60 s query timers behind closed sockets (uploadPreKeys, waitForMessage);
// they would keep this finished process alive for up to two minutes.
process.exit(0);
