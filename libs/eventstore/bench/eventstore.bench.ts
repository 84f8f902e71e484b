/**
 * Event store throughput on this machine, SQLite and PostgreSQL side by side, about 50 s:
 *   node dist/bench/eventstore.bench.js   (npm run bench -w @switchboard/eventstore)
 * SQLite: a real file in WAL mode with synchronous=NORMAL, as in production. PostgreSQL: a
 * database of its own on SWITCHBOARD_TEST_POSTGRES_URL's server (default the local one), dropped
 * after; skipped, with the reason, when it does not answer.
 * CPU per operation: `process` is this Node process (the client; for SQLite the whole store),
 * `server` the PostgreSQL backends of the store's connections, read from /proc.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { PostgresEventStore, SqliteEventStore, type EventStore, type NewEvent } from '../src/index.js';
import { createTestDatabase, onDatabase, postgresSkipReason } from '../src/testing/index.js';
import { BackendCpu, cpuSecondsBetween, processCpuSeconds, type CpuByPid } from './cpu.js';

const phaseMs = 4_000;

/** A store under test: how to open another connection to it, and how to read its server's CPU. */
interface BenchTarget {
  open(): EventStore;
  serverCpu?: () => Promise<CpuByPid>;
}

interface Measured {
  operations: number;
  seconds: number;
  processCpu: number;
  serverCpu: number | undefined;
}

/** Runs `work`, returning how many operations it reports, its wall time and the CPU spent meanwhile. */
async function measured(target: BenchTarget, work: () => Promise<number>): Promise<Measured> {
  const [cpuBefore, serverBefore] = [processCpuSeconds(), await target.serverCpu?.()];
  const started = performance.now();
  const operations = await work();
  const seconds = (performance.now() - started) / 1000;
  const processCpu = processCpuSeconds() - cpuBefore;
  const serverAfter = await target.serverCpu?.();
  const serverCpu = serverBefore && serverAfter ? cpuSecondsBetween(serverBefore, serverAfter) : undefined;
  return { operations, seconds, processCpu, serverCpu };
}

/** `writers` loops, each repeating `operation` until the phase ends; the operations completed. */
async function repeatFor(writers: number, operation: (writer: number, i: number) => Promise<unknown>): Promise<number> {
  const deadline = performance.now() + phaseMs;
  const counts = await Promise.all(Array.from({ length: writers }, async (_, writer) => {
    let done = 0;
    while (performance.now() < deadline) await operation(writer, done++);
    return done;
  }));
  return counts.reduce((sum, count) => sum + count, 0);
}

function perSecond(count: number, seconds: number): string {
  return Math.round(count / seconds).toLocaleString('en-US').padStart(9);
}

/** CPU microseconds per operation: the process's, and the server's where there is one. */
function cpuPer(result: Measured, operations = result.operations): string {
  const micros = (seconds: number) => Math.round((seconds * 1e6) / operations).toLocaleString('en-US');
  const server = result.serverCpu === undefined ? '' : ` + ${micros(result.serverCpu)} server`;
  return `cpu/op ${micros(result.processCpu)} µs process${server}`;
}

function sampleEvents(count: number): NewEvent[] {
  return Array.from({ length: count }, (_, n) => ({
    type: 'MessageAccepted',
    data: { messageId: `msg_${n}`, to: '+4915112345678', text: 'Your order has shipped.' },
    metadata: { accountId: 'acc_bench', correlationId: 'cor_bench', occurredAt: new Date().toISOString() },
  }));
}

/**
 * `batch` events per append from `writers` loops on each of `stores` (separate connections, as
 * processes would be), each writer round-robin over 100 streams of its own with tracked revisions.
 * Returns the events appended (all in the `message` category).
 */
async function benchAppends(target: BenchTarget, stores: EventStore[], writersEach: number, batch: number, label: string): Promise<number> {
  const events = sampleEvents(batch);
  const revisions = new Map<string, bigint>();
  const result = await measured(target, () => repeatFor(stores.length * writersEach, async (writer, i) => {
    const stream = `message-${label}w${writer}s${i % 100}`;
    const store = stores[writer % stores.length]!;
    const { nextRevision } = await store.append(stream, events, { expectedRevision: revisions.get(stream) ?? 'no_stream' });
    revisions.set(stream, nextRevision);
  }));
  const shape = `${String(batch).padStart(2)} event(s)/append, ${stores.length} conn x ${String(writersEach).padStart(2)} writer(s)`;
  console.log(`  append, ${shape}: ${perSecond(result.operations, result.seconds)} appends/s ${perSecond(result.operations * batch, result.seconds)} events/s   ${cpuPer(result)}`);
  return result.operations * batch;
}

async function benchStreamReads(target: BenchTarget, store: EventStore): Promise<void> {
  for (let s = 0; s < 1_000; s += 1) await store.append(`session-read${s}`, sampleEvents(10), { expectedRevision: 'no_stream' });
  const result = await measured(target, () => repeatFor(1, async (_, i) => {
    const read = await store.readStream(`session-read${i % 1_000}`);
    if (read.length !== 10) throw new Error(`expected 10 events, read ${read.length}`);
  }));
  console.log(`  read a 10-event stream, 1 reader:                   ${perSecond(result.operations, result.seconds)} reads/s   ${perSecond(result.operations * 10, result.seconds)} events/s   ${cpuPer(result)}`);
}

/** A projection rebuilding from zero: subscribe from the start until it reaches the head. */
async function benchCatchUp(target: BenchTarget, store: EventStore, head: number): Promise<void> {
  const result = await measured(target, async () => {
    let received = 0;
    for await (const batch of store.subscribe({ category: 'message', from: 'start' })) if ((received += batch.length) >= head) break;
    return received;
  });
  console.log(`  catch-up subscription over ${head.toLocaleString('en-US')} events:        ${perSecond(result.operations, result.seconds)} events/s   ${cpuPer(result)} (per event)`);
}

/** Every phase against one store; the connections it opens are closed before it returns. */
async function benchStore(target: BenchTarget): Promise<void> {
  const stores = Array.from({ length: 4 }, () => target.open());
  const [first] = stores as [EventStore];
  try {
    let head = 0;
    head += await benchAppends(target, [first], 1, 1, 'a');
    head += await benchAppends(target, [first], 1, 10, 'b');
    head += await benchAppends(target, [first], 16, 1, 'c');
    head += await benchAppends(target, stores, 4, 1, 'd');
    await benchStreamReads(target, first);
    await benchCatchUp(target, first, head);
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
}

async function benchSqlite(): Promise<void> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-eventstore-bench-'));
  const file = path.join(directory, 'bench.sqlite');
  try {
    console.log('SQLite (node:sqlite, WAL, synchronous=NORMAL), one file');
    await benchStore({ open: () => new SqliteEventStore(file) });
  } finally {
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

async function benchPostgres(): Promise<void> {
  const skipReason = await postgresSkipReason();
  if (skipReason) {
    console.log(`PostgreSQL: skipped, ${skipReason}`);
    return;
  }
  const database = await createTestDatabase('sb_eventstore_bench');
  const backends = await BackendCpu.connect(database.url, 'switchboard-eventstore-bench');
  try {
    const settings = await onDatabase(database.url, async (client) => (await client.query<{ version: string; sync: string; fsync: string }>(
      "SELECT current_setting('server_version') AS version, current_setting('synchronous_commit') AS sync, current_setting('fsync') AS fsync",
    )).rows[0]!);
    console.log(`PostgreSQL ${settings.version} (synchronous_commit=${settings.sync}, fsync=${settings.fsync}), ${new URL(database.url).host}`);
    await benchStore({ open: () => new PostgresEventStore(database.url, { schema: 'bench' }), serverCpu: () => backends.read() });
  } finally {
    await backends.close();
    await database.drop();
  }
}

console.log(`Event store benchmark (node ${process.version}, ${os.cpus().length} CPUs, ${phaseMs / 1000} s per phase)`);
await benchSqlite();
await benchPostgres();
