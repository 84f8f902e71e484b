/**
 * Tamper evidence (issue 16) in one run:
 *   node dist/bench/audit.bench.js   (npm run bench:audit -w @switchboard/app)
 * 1. Append cost with and without the hash chain: BENCH_AUDIT_APPENDS appends (default 20,000) of
 *    one message event each, four per message stream, 64 in flight, committed once per event-loop
 *    turn as the SQLite store does, on fresh SQLite files: once as appends ran before chains
 *    (MAX(revision), insert) and once with the chain (head lookup with its hash, chainEvents,
 *    insert), alternating, best of three each; then through SqliteEventStore itself (chained, as the
 *    services append); and chainEvents alone on the same events. CPU per append is this
 *    process's: the embedded store runs in it.
 * 2. `audit verify` over BENCH_AUDIT_EVENTS events (default 200,000) of message streams written
 *    through SqliteEventStore: in a child process of its own (so its CPU and peak RSS are its own),
 *    a raw scan of the log (readAll pages, to warm the page cache and as the yardstick), the CLI's
 *    verifyStores over the same store, and the raw scan again.
 */
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { GENESIS_HASH, SqliteEventStore, TurnBatchedWrites, chainEvents, chainHeadFrom, openSqliteDatabase } from '@switchboard/eventstore';
import type { NewEvent } from '@switchboard/eventstore';
import { loadConfig } from '@switchboard/service-kit';
import { verifyStores } from '../src/cli/audit/verify-stores.js';
import { MESSAGE_LIFE as LIFE, fillMessageStore, messageEvent, scan, timed } from './message-store.js';

const EVENTS = Number(process.env['BENCH_AUDIT_EVENTS'] ?? 200_000);
const APPENDS = Number(process.env['BENCH_AUDIT_APPENDS'] ?? 20_000);
const IN_FLIGHT = 64;
const SELF = fileURLToPath(import.meta.url);


type Append = (stream: string, event: NewEvent) => Promise<unknown>;

/** `count` appends of one event, four per stream in order, `IN_FLIGHT` streams at a time: wall time and CPU. */
async function appendLoad(append: Append, count: number) {
  let nextStream = 0;
  const streams = Math.ceil(count / LIFE.length);
  const worker = async () => {
    while (nextStream < streams) {
      const m = nextStream++;
      for (let n = 0; n < LIFE.length; n += 1) await append(`message-msg_${m}`, messageEvent(m, n));
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const appends = streams * LIFE.length;
  return { appends, appendsPerSecond: Math.round(appends / seconds), cpuUsPerAppend: +((used.user + used.system) / appends).toFixed(1) };
}

/**
 * The append path on a raw connection, with or without the chain and nothing else different:
 * the stream's head (its hash too when chained), the chain, the insert; one transaction per turn.
 */
async function rawAppender(file: string, chained: boolean): Promise<{ append: Append; close: () => void }> {
  await new SqliteEventStore(file).close(); // creates the schema
  const db = openSqliteDatabase(file, '');
  const head = chained
    ? db.prepare("SELECT revision, json_extract(metadata, '$.hash') AS hash FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1")
    : db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream = ?');
  const insert = db.prepare('INSERT INTO events (id, stream, category, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const writes = new TurnBatchedWrites<{ stream: string; event: NewEvent }>(db, (items) => {
    for (const { stream, event } of items) {
      const row = head.get(stream) as { revision: number | null; hash?: unknown } | undefined;
      const revision = row?.revision === null || row?.revision === undefined ? 0 : row.revision + 1;
      const stored = chained ? chainEvents(chainHeadFrom(row?.hash), [event]).chained[0]! : event;
      insert.run(event.id ?? randomUUID(), stream, 'message', revision, stored.type, JSON.stringify(stored.data), JSON.stringify(stored.metadata), Date.now());
    }
  });
  return { append: (stream, event) => writes.add({ stream, event }), close: () => db.close() };
}

async function appendCosts(dir: string) {
  const runs: Record<string, ReturnType<typeof appendLoad> extends Promise<infer R> ? R : never> = {};
  const keepBest = (name: string, run: (typeof runs)[string]) => {
    if (!runs[name] || run.cpuUsPerAppend < runs[name].cpuUsPerAppend) runs[name] = run;
  };
  for (let round = 0; round < 3; round += 1) {
    for (const chained of [false, true]) {
      const raw = await rawAppender(join(dir, `raw-${chained}-${round}.sqlite`), chained);
      keepBest(chained ? 'chained' : 'without chain', await appendLoad(raw.append, APPENDS));
      raw.close();
    }
  }
  const store = new SqliteEventStore(join(dir, 'store.sqlite'));
  keepBest('SqliteEventStore (chained)', await appendLoad((stream, event) => store.append(stream, [event], { expectedRevision: 'any' }), APPENDS));
  await store.close();
  return { ...runs, 'chainEvents alone': chainingAlone() };
}

/** The hashing an append adds, without I/O around it (the least noisy figure on a busy machine); best of three passes. */
function chainingAlone() {
  const events = Array.from({ length: APPENDS }, (_, i) => messageEvent(i >> 2, i % LIFE.length));
  let best = { appends: APPENDS, appendsPerSecond: 0, cpuUsPerAppend: Infinity };
  for (let pass = 0; pass < 3; pass += 1) {
    let head = GENESIS_HASH;
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (const event of events) head = chainEvents(head, [event]).head;
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    const cpuUsPerAppend = +((used.user + used.system) / APPENDS).toFixed(1);
    if (cpuUsPerAppend < best.cpuUsPerAppend) best = { appends: APPENDS, appendsPerSecond: Math.round(APPENDS / seconds), cpuUsPerAppend };
  }
  return best;
}

/** A messaging store of `EVENTS` events, four-event message streams, written as the service writes. */
async function fillStore(dataDir: string): Promise<string> {
  const file = join(dataDir, 'messaging', 'events.sqlite');
  await fillMessageStore(file, EVENTS);
  return file;
}



/** The child: scan, verify, scan; what each read per second and its CPU per event. */
async function verifyChild(dataDir: string): Promise<void> {
  const rssAtStartMb = Math.round(process.memoryUsage().rss / 2 ** 20);
  const store = new SqliteEventStore(join(dataDir, 'messaging', 'events.sqlite'));
  await scan(store);
  const verified = await timed(() => verifyStores(loadConfig({ SWITCHBOARD_DATA_DIR: dataDir }), ['messaging'], undefined));
  const peakRssAfterVerifyMb = Math.round(process.resourceUsage().maxRSS / 1024);
  const scanned = await timed(() => scan(store));
  await store.close();
  const [report] = verified.result;
  const row = (events: number, run: { seconds: number; cpuSeconds: number }) => ({
    events, eventsPerSecond: Math.round(events / run.seconds), cpuUsPerEvent: +((run.cpuSeconds * 1e6) / events).toFixed(2),
  });
  console.log(JSON.stringify({
    verify: { ...row(report!.events, verified), streams: report!.streams, chainedStreams: report!.chainedStreams, findings: report!.findings.length },
    rawScan: row(scanned.result, scanned),
    memory: { rssAtStartMb, peakRssAfterVerifyMb },
  }));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-audit-'));
  try {
    const appends = await appendCosts(dir);
    console.error(`append cost (${APPENDS.toLocaleString('en-US')} appends, ${IN_FLIGHT} in flight):`);
    console.table(appends);
    const file = await fillStore(dir);
    console.error(`store: ${EVENTS.toLocaleString('en-US')} events, ${(statSync(file).size / 2 ** 20).toFixed(0)} MB`);
    const child = spawnSync(process.execPath, [SELF, 'verify', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (child.status !== 0) throw new Error(`the verify process exited with ${child.status}`);
    const verify = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Record<string, Record<string, number>>;
    console.table({ 'audit verify': verify['verify'], 'raw scan (readAll pages)': verify['rawScan'] });
    console.log(JSON.stringify({ events: EVENTS, appends, ...verify }, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'verify') await verifyChild(process.argv[3]!);
else await main();
