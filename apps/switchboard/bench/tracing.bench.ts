/**
 * What tracing costs on the send path: text sends through the whole embedded Switchboard
 * (gateway, bus, quota, messaging, sessions, Baileys, the emulated network), tracing off versus
 * on with every span exported over OTLP http/protobuf to a local sink.
 *   node dist/bench/tracing.bench.js   (npm run bench -w @switchboard/app)
 * Two fresh `npm start` children (off, on) take turns in blocks, so a shared machine's load hits
 * both alike. Env: BENCH_BLOCK (sends per block, default 200), BENCH_BLOCKS (default 10),
 * BENCH_CONCURRENCY (default 16).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { closedLoopbackPort } from '@switchboard/bus/testing';
import { EmulatorControlClient } from '@switchboard/chat-emulator';

const BLOCK = Number(process.env['BENCH_BLOCK'] ?? 200);
const BLOCKS = Number(process.env['BENCH_BLOCKS'] ?? 10);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
const WARMUP = 200;
const EMBEDDED = fileURLToPath(new URL('../src/embedded.js', import.meta.url));

interface Target {
  tracing: boolean;
  pid: number;
  url: string;
  apiKey: string;
  sessionId: string;
  stop(): Promise<void>;
}

interface Block {
  perSecond: number;
  /** CPU time the Switchboard process spent per send (less sensitive to a busy machine than rates). */
  cpuMsPerSend: number;
  latencies: number[];
  failed: number;
}

/** An OTLP receiver that accepts and drops everything, counting the bytes it was sent. */
async function startSink(): Promise<{ endpoint: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { endpoint: `http://127.0.0.1:${port}`, bytes: () => bytes, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function startEmbedded(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EMBEDDED], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${env['SWITCHBOARD_PORT']}/readyz`;
  for (const giveUpAt = Date.now() + 90_000; Date.now() < giveUpAt; await sleep(200)) {
    if ((await fetch(url).then((r) => r.status, () => 0)) === 200) return child;
    if (child.exitCode !== null) break;
  }
  child.kill('SIGKILL');
  throw new Error('Switchboard did not become ready');
}

async function call(url: string, apiKey: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any -- bench reads two fields
  const response = await fetch(`${url}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function connectSession(url: string, apiKey: string, emulator: EmulatorControlClient): Promise<string> {
  const created = await call(url, apiKey, 'POST', '/v1/sessions', {});
  await emulator.scan(created.body.data.qrCode, `1888${randomBytes(3).readUIntBE(0, 3) % 10_000_000}`);
  const sessionId: string = created.body.data.sessionId;
  for (const giveUpAt = Date.now() + 60_000; Date.now() < giveUpAt; await sleep(100)) {
    if ((await call(url, apiKey, 'GET', `/v1/sessions/${sessionId}`)).body?.data?.status === 'connected') return sessionId;
  }
  throw new Error('session did not connect');
}

/** `count` text sends, `CONCURRENCY` at a time; latency of each as the client sees it. */
async function sendMany(url: string, apiKey: string, sessionId: string, count: number): Promise<{ latencies: number[]; failed: number; seconds: number }> {
  const latencies: number[] = [];
  let failed = 0;
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const at = performance.now();
      const sent = await call(url, apiKey, 'POST', '/v1/messages/text', { sessionId, to: `1999000${n % 50}`, text: `bench ${n}` });
      latencies.push(performance.now() - at);
      if (sent.status !== 201) failed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { latencies, failed, seconds: (performance.now() - started) / 1000 };
}

/** A fresh `npm start` child with its own data dir and a connected session. */
async function startTarget(tracing: boolean, sinkEndpoint: string): Promise<Target> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-bench-tracing-'));
  const apiKey = `sbk_${randomBytes(32).toString('base64url')}`;
  const [port, controlPort] = [await closedLoopbackPort(), await closedLoopbackPort()];
  const child = await startEmbedded({
    SWITCHBOARD_PORT: String(port), SWITCHBOARD_EMULATOR_CONTROL_PORT: String(controlPort), SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_CHAT_NETWORK: 'emulator', SWITCHBOARD_BOOTSTRAP_API_KEY: apiKey, SWITCHBOARD_HOST: '127.0.0.1', LOG_LEVEL: 'warn',
    // Sends go to 50 numbers: pacing would measure its own waits, not tracing's cost.
    SWITCHBOARD_PACING_GAP_MS: '0', SWITCHBOARD_PACING_NEW_CONTACT_GAP_MS: '0',
    ...(tracing ? { OTEL_EXPORTER_OTLP_ENDPOINT: sinkEndpoint } : {}),
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const sessionId = await connectSession(url, apiKey, new EmulatorControlClient(`http://127.0.0.1:${controlPort}`));
    await sendMany(url, apiKey, sessionId, WARMUP);
    return { tracing, pid: child.pid ?? 0, url, apiKey, sessionId, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

async function block(target: Target): Promise<Block> {
  const cpuBefore = cpuMs(target.pid);
  const { latencies, failed, seconds } = await sendMany(target.url, target.apiKey, target.sessionId, BLOCK);
  return { perSecond: BLOCK / seconds, cpuMsPerSend: (cpuMs(target.pid) - cpuBefore) / BLOCK, latencies, failed };
}

/** User + system CPU of a process so far, from /proc (Linux; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

// Both Switchboards run side by side and take turns, block by block, in alternating order: the
// machine's load (shared cores) then weighs on both alike, and each pair of blocks is compared.
const sink = await startSink();
const off = await startTarget(false, sink.endpoint);
// BENCH_CONTROL=1: both sides untraced, to see how far two identical runs differ on this machine.
const control = process.env['BENCH_CONTROL'] === '1';
const on = await startTarget(!control, sink.endpoint);
console.log(`text sends through the embedded Switchboard: ${BLOCKS} blocks of ${BLOCK} per mode, ${CONCURRENCY} in flight, after ${WARMUP} warm-up${control ? ' (CONTROL: tracing off on both sides)' : ''}`);
const results = { off: [] as Block[], on: [] as Block[] };
const ratios: number[] = [];
const cpuRatios: number[] = [];
try {
  for (let i = 0; i < BLOCKS; i++) {
    const order = i % 2 === 0 ? [off, on] : [on, off];
    const [first, second] = [await block(order[0]!), await block(order[1]!)];
    const [offBlock, onBlock] = order[0] === off ? [first, second] : [second, first];
    results.off.push(offBlock);
    results.on.push(onBlock);
    ratios.push(onBlock.perSecond / offBlock.perSecond);
    cpuRatios.push(onBlock.cpuMsPerSend / offBlock.cpuMsPerSend);
    const show = (b: Block) => `${b.perSecond.toFixed(1).padStart(6)}/s ${b.cpuMsPerSend.toFixed(2).padStart(5)} ms CPU/send`;
    console.log(`  block ${String(i + 1).padStart(2)}: off ${show(offBlock)}   on ${show(onBlock)}`);
  }
} finally {
  await off.stop();
  await on.stop();
  await sink.close();
}
for (const [name, blocks] of Object.entries(results)) {
  const latencies = blocks.flatMap((b) => b.latencies);
  const failed = blocks.reduce((n, b) => n + b.failed, 0);
  console.log(`tracing ${name.padEnd(3)}: median ${median(blocks.map((b) => b.perSecond)).toFixed(1)} sends/s, ${median(blocks.map((b) => b.cpuMsPerSend)).toFixed(2)} ms CPU/send, p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms, ${failed} failed`);
}
const p99 = (blocks: Block[]) => quantile(blocks.flatMap((b) => b.latencies), 0.99);
console.log(`OTLP exported: ${(sink.bytes() / 1e6).toFixed(1)} MB`);
console.log(`tracing costs ${((1 - median(ratios)) * 100).toFixed(1)}% throughput and ${((median(cpuRatios) - 1) * 100).toFixed(1)}% CPU per send (medians of paired blocks), ${((p99(results.on) / p99(results.off) - 1) * 100).toFixed(1)}% p99 (goal: under 15%)`);
