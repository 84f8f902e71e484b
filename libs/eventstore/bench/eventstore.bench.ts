/**
 * SQLite event store throughput on this machine, bounded to about 20 s:
 *   node dist/bench/eventstore.bench.js   (npm run bench -w @switchboard/eventstore)
 * Every figure is from a real file in WAL mode with synchronous=NORMAL, as in production.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { SqliteEventStore, type NewEvent } from '../src/index.js';

const phaseMs = 4_000;

interface Rate {
  operations: number;
  seconds: number;
}

/** Repeats `operation` for `phaseMs` and reports how many completed. */
async function measure(operation: (i: number) => Promise<unknown>): Promise<Rate> {
  const started = performance.now();
  let operations = 0;
  while (performance.now() - started < phaseMs) {
    await operation(operations);
    operations += 1;
  }
  return { operations, seconds: (performance.now() - started) / 1000 };
}

function perSecond(count: number, seconds: number): string {
  return Math.round(count / seconds).toLocaleString('en-US').padStart(9);
}

function sampleEvents(count: number): NewEvent[] {
  return Array.from({ length: count }, (_, n) => ({
    type: 'MessageAccepted',
    data: { messageId: `msg_${n}`, to: '+4915112345678', text: 'Your order has shipped.' },
    metadata: { accountId: 'acc_bench', correlationId: 'cor_bench', occurredAt: new Date().toISOString() },
  }));
}

/** Appends `batch` events per append, round-robin over 1,000 streams with tracked revisions. */
async function benchAppends(store: SqliteEventStore, batch: number, prefix: string): Promise<void> {
  const revisions = new Map<string, bigint>();
  const events = sampleEvents(batch);
  const rate = await measure(async (i) => {
    const stream = `message-${prefix}${i % 1_000}`;
    const { nextRevision } = await store.append(stream, events, { expectedRevision: revisions.get(stream) ?? 'no_stream' });
    revisions.set(stream, nextRevision);
  });
  console.log(`append, ${String(batch).padStart(2)} event(s) per append: ${perSecond(rate.operations, rate.seconds)} appends/s ${perSecond(rate.operations * batch, rate.seconds)} events/s`);
}

async function benchStreamReads(store: SqliteEventStore): Promise<void> {
  for (let s = 0; s < 1_000; s += 1) await store.append(`session-read${s}`, sampleEvents(10), { expectedRevision: 'no_stream' });
  const rate = await measure(async (i) => {
    const read = await store.readStream(`session-read${i % 1_000}`);
    if (read.length !== 10) throw new Error(`expected 10 events, read ${read.length}`);
  });
  console.log(`read a 10-event stream:               ${perSecond(rate.operations, rate.seconds)} reads/s   ${perSecond(rate.operations * 10, rate.seconds)} events/s`);
}

/** A projection rebuilding from zero: subscribe from the start until it reaches the head. */
async function benchCatchUp(store: SqliteEventStore): Promise<void> {
  const head = (await store.readAll({ category: 'message' })).length;
  const started = performance.now();
  let received = 0;
  const subscription = store.subscribe({ category: 'message', from: 'start' });
  for await (const batch of subscription) if ((received += batch.length) >= head) break;
  const seconds = (performance.now() - started) / 1000;
  console.log(`catch-up subscription over ${head.toLocaleString('en-US')} events: ${perSecond(received, seconds)} events/s`);
}

async function main(): Promise<void> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-eventstore-bench-'));
  const store = new SqliteEventStore(path.join(directory, 'bench.sqlite'));
  try {
    console.log(`SQLite event store benchmark (node ${process.version}, ${os.cpus().length} CPUs, ${phaseMs / 1000} s per phase)`);
    await benchAppends(store, 1, 'one');
    await benchAppends(store, 10, 'ten');
    await benchStreamReads(store);
    await benchCatchUp(store);
  } finally {
    await store.close();
    fs.rmSync(directory, { recursive: true, force: true });
  }
}

await main();
