/**
 * Read models rebuilt from zero beside a raw scan of the same store, in one run:
 *   node dist/bench/rebuild.bench.js   (npm run bench:rebuild -w @switchboard/app)
 * Writes a store shaped like a busy Switchboard's, from the contracts' own event types: message
 * streams (accepted, sent, delivered, read; some failed and refunded, some received, a few
 * MessageAccepted@1 that are upcast on read) and session streams (QR code, connections, activity,
 * a few deleted), to a SQLite file in a temp dir, and to PostgreSQL when one answers. Then, each
 * in a child process of its own so its CPU and peak RSS are its own: a raw scan of each category
 * (readAll in pages of the catch-up size), a rebuild from zero of each read model of messaging
 * and sessions (the services' projections through ProjectionRunner until caught up), and the same
 * rebuild as `switchboard projections rebuild` runs it in the embedded mode (rebuildProjection in a
 * fresh process: a new generation built beside a copy of a live read model that holds the whole
 * log, built by another child first, then swapped in; its swap time shown apart).
 * Each runs BENCH_REBUILD_ROUNDS times (default 3), round after round; the fastest run of each is shown.
 * Env: BENCH_REBUILD_EVENTS (default 200000), BENCH_REBUILD_ROUNDS, BENCH_REBUILD_POSTGRES=0 skips PostgreSQL.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import type { DatabaseSync } from 'node:sqlite';
import { STREAM_CATEGORY, idempotencyKeyHash, messageStream, sessionStream } from '@switchboard/contracts';
import type { MessageEvent, SessionEvent } from '@switchboard/contracts';
import { CATCH_UP_PAGE_SIZE, PostgresEventStore, SqliteEventStore, openSqliteDatabase } from '@switchboard/eventstore';
import type { EventStore, NewEvent } from '@switchboard/eventstore';
import { createTestDatabase, onDatabase, postgresSkipReason } from '@switchboard/eventstore/testing';
import { messageHistoryProjection, messageStatusProjection } from '@switchboard/messaging';
import { ProjectionRunner, eventMetadata, rebuildProjection, toNewEvent, ulid } from '@switchboard/service-kit';
import type { Projection } from '@switchboard/service-kit';
import { SessionListProjection } from '@switchboard/sessions';
import { processCpuMs } from './process-metrics.js';

const EVENTS = Number(process.env['BENCH_REBUILD_EVENTS'] ?? 200_000);
const POSTGRES = process.env['BENCH_REBUILD_POSTGRES'] !== '0';
const ROUNDS = Number(process.env['BENCH_REBUILD_ROUNDS'] ?? 3);
const SELF = fileURLToPath(import.meta.url);
const PG_SCHEMA = 'rebuild';

/** The read models rebuilt, with the table whose row count proves each did its work. */
const READ_MODELS = {
  'message-status': { category: STREAM_CATEGORY.message, table: 'message_status', open: (db: DatabaseSync) => messageStatusProjection(db) },
  'message-history': { category: STREAM_CATEGORY.message, table: 'message_history', open: (db: DatabaseSync) => messageHistoryProjection(db) },
  'session-list': { category: STREAM_CATEGORY.session, table: 'session_list', open: (db: DatabaseSync) => new SessionListProjection(db) },
} satisfies Record<string, { category: string; table: string; open: (db: DatabaseSync) => Projection }>;
type ReadModel = keyof typeof READ_MODELS;

type StoreLocation = { sqlite: string } | { postgres: string };
type Task = { kind: 'scan'; category: string } | { kind: 'rebuild' | 'blue-green'; readModel: ReadModel; dir: string };
interface Measured { events: number; seconds: number; cpuUs: number; serverCpuUs: number | undefined; peakRssMb: number; startRssMb: number; rows?: number; swapMs?: number }

// ---- the store: traffic told as the services tell it ------------------------------------------

/** One event of the log, at the time it happened (the log is written in time order). */
interface Fact { at: number; stream: string; event: NewEvent }
interface Written { facts: Fact[]; messageEvents: number; sessionEvents: number; outbound: number; inbound: number; liveSessions: number }

const T0 = Date.parse('2026-11-02T08:00:00.000Z');
/** Messages accepted or received per second: a busy account mix, about 170 events/s. */
const MESSAGES_PER_SECOND = 50;
const iso = (at: number): string => new Date(at).toISOString();

/** A deterministic generator (mulberry32), so every run writes the same shape. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function fact(stream: string, accountId: string, at: number, event: MessageEvent | SessionEvent | { type: 'MessageAccepted'; version: 1; data: unknown }): Fact {
  return { at, stream, event: toNewEvent(event, eventMetadata({ accountId, now: new Date(at) })) };
}

interface SessionPlan { sessionId: string; accountId: string; phone: string }

/** Created, QR, connected in the first minute; activity, drops and reconnects all day; one in twenty deleted at the end. */
function sessionFacts(s: SessionPlan, i: number, count: number, end: number, next: () => number): Fact[] {
  const stream = sessionStream(s.sessionId);
  const { sessionId, accountId, phone } = s;
  const start = T0 + i * 100;
  const facts = [
    fact(stream, accountId, start, { type: 'SessionCreated', version: 1, data: { sessionId, accountId, name: `Shop ${i}`, createdAt: iso(start) } }),
    fact(stream, accountId, start + 50, { type: 'QrCodeIssued', version: 1, data: { sessionId, sequence: 1, fingerprint: '0123456789abcdef', issuedAt: iso(start + 50), expiresAt: iso(start + 60_050) } }),
    fact(stream, accountId, start + 9_000, { type: 'SessionConnected', version: 1, data: { sessionId, phone, connectedAt: iso(start + 9_000) } }),
  ];
  const times = Array.from({ length: count - 3 }, () => start + 10_000 + Math.floor(next() * (end - start - 20_000))).sort((a, b) => a - b);
  times.forEach((at, n) => {
    if (n % 20 === 10) facts.push(fact(stream, accountId, at, { type: 'SessionDisconnected', version: 1, data: { sessionId, reason: 'connection_lost', disconnectedAt: iso(at) } }));
    else if (n % 20 === 11) facts.push(fact(stream, accountId, at, { type: 'SessionConnected', version: 1, data: { sessionId, phone, connectedAt: iso(at) } }));
    else facts.push(fact(stream, accountId, at, { type: 'SessionActivityRecorded', version: 1, data: { sessionId, activity: 'message_sent', at: iso(at) } }));
  });
  if (i % 20 === 19) facts.push(fact(stream, accountId, end, { type: 'SessionDeleted', version: 1, data: { sessionId, previousStatus: 'connected', loggedOut: true, deletedAt: iso(end) } }));
  return facts;
}

/**
 * Of 100 messages, 85 sent (delivered within seconds, 70 of them read within half an hour; 5 in
 * 100 accepted as MessageAccepted@1, upcast on read), 5 failed and refunded, 10 received.
 */
function messageFacts(i: number, s: SessionPlan, next: () => number): { facts: Fact[]; direction: 'in' | 'out' } {
  const messageId = `msg_${ulid()}`;
  const stream = messageStream(messageId);
  const { accountId, sessionId } = s;
  const at = T0 + 60_000 + Math.floor((i * 1000) / MESSAGES_PER_SECOND);
  const kind = i % 100;
  if (kind >= 90) {
    const data = { messageId, accountId, sessionId, networkMessageId: `3EB0${i}`, from: '4917612345678', to: s.phone, sentAt: iso(at - 300), receivedAt: iso(at),
      content: { type: 'text' as const, text: `Hello, is order ${i} on its way?` }, quotedNetworkId: null, quotedMessageId: null };
    return { direction: 'in', facts: [fact(stream, accountId, at, { type: 'MessageReceived', version: 1, data })] };
  }
  const facts = { messageId, accountId, sessionId, to: `4917${String(i).padStart(8, '0')}`, content: { type: 'text' as const, text: `Your order ${i} has shipped and arrives tomorrow.` },
    quotedMessageId: null, usageDay: iso(at).slice(0, 10), acceptedAt: iso(at) };
  const accepted = kind < 5
    ? fact(stream, accountId, at, { type: 'MessageAccepted', version: 1, data: { ...facts, idempotencyKey: `key-${i}` } })
    : fact(stream, accountId, at, { type: 'MessageAccepted', version: 2, data: { ...facts, idempotencyKeyHash: idempotencyKeyHash(`key-${i}`) } });
  if (kind >= 85) {
    return { direction: 'out', facts: [accepted,
      fact(stream, accountId, at + 200, { type: 'MessageFailed', version: 1, data: { messageId, code: 'SESSION_NOT_CONNECTED', message: 'The session is not connected.', refundable: true, failedAt: iso(at + 200) } }),
      fact(stream, accountId, at + 250, { type: 'MessageQuotaRefunded', version: 1, data: { messageId, usageDay: facts.usageDay, refundedAt: iso(at + 250) } })] };
  }
  const sent = at + 300 + Math.floor(next() * 400);
  const delivered = sent + 500 + Math.floor(next() * 2_500);
  const outbound = [accepted,
    fact(stream, accountId, sent, { type: 'MessageSent', version: 1, data: { messageId, networkMessageId: `3EB0${i}`, sentAt: iso(sent), from: s.phone } }),
    fact(stream, accountId, delivered, { type: 'MessageDelivered', version: 1, data: { messageId, deliveredAt: iso(delivered) } })];
  if (kind < 70) {
    const read = delivered + 5_000 + Math.floor(next() * 1_800_000);
    outbound.push(fact(stream, accountId, read, { type: 'MessageRead', version: 1, data: { messageId, readAt: iso(read) } }));
  }
  return { direction: 'out', facts: outbound };
}

/** About a tenth of the events in session streams of 50, the rest in message streams; the whole log in time order. */
function trafficOf(total: number): Written {
  const next = random(17);
  const accounts = Array.from({ length: 10 }, () => `acc_${ulid()}`);
  const sessions: SessionPlan[] = Array.from({ length: Math.max(4, Math.round(total / 500)) }, (_, i) =>
    ({ sessionId: `ses_${ulid()}`, accountId: accounts[i % accounts.length]!, phone: `4915${String(1_000_000 + i).padStart(9, '0')}` }));
  // 3.4 events per message on average.
  const messages = Array.from({ length: Math.round((total * 0.9) / 3.4) }, (_, i) => messageFacts(i, sessions[i % sessions.length]!, next));
  const end = T0 + 60_000 + Math.ceil((messages.length * 1000) / MESSAGES_PER_SECOND) + 1_800_000;
  const sessionLogs = sessions.map((s, i) => sessionFacts(s, i, 50, end, next));
  const facts = [...messages.flatMap((m) => m.facts), ...sessionLogs.flat()].sort((a, b) => a.at - b.at);
  return {
    facts, messageEvents: messages.reduce((sum, m) => sum + m.facts.length, 0), sessionEvents: sessionLogs.reduce((sum, l) => sum + l.length, 0),
    outbound: messages.filter((m) => m.direction === 'out').length, inbound: messages.filter((m) => m.direction === 'in').length,
    liveSessions: sessions.filter((_, i) => i % 20 !== 19).length,
  };
}

/** The log in time order, 200 single-event appends at a time (as concurrent requests write them). */
async function writeTraffic(store: EventStore, facts: readonly Fact[]): Promise<void> {
  const revisions = new Map<string, bigint>();
  for (let first = 0; first < facts.length; first += 200) {
    await Promise.all(facts.slice(first, first + 200).map((f) => {
      const previous = revisions.get(f.stream);
      revisions.set(f.stream, previous === undefined ? 0n : previous + 1n);
      return store.append(f.stream, [f.event], { expectedRevision: previous ?? 'no_stream' });
    }));
  }
}

// ---- one measurement, in a child process ------------------------------------------------------

function openStore(location: StoreLocation): EventStore {
  return 'sqlite' in location ? new SqliteEventStore(location.sqlite) : new PostgresEventStore(location.postgres, { schema: PG_SCHEMA });
}

/** A task ready to measure: `run` (timed) answers the events it went through, `finish` (not timed) the rows left behind. */
interface Prepared { run(): Promise<number>; finish(): Promise<number | undefined>; swapMs?: () => number }

function scan(store: EventStore, category: string): Prepared {
  const run = async (): Promise<number> => {
    let events = 0;
    for (let from = 0n; ;) {
      const page = await store.readAll({ category, fromPosition: from, maxCount: CATCH_UP_PAGE_SIZE });
      events += page.length;
      if (page.length < CATCH_UP_PAGE_SIZE) return events;
      from = page.at(-1)!.position + 1n;
    }
  };
  return { run, finish: async () => undefined };
}

async function rebuild(store: EventStore, readModel: ReadModel, dir: string): Promise<Prepared> {
  const { category, table, open } = READ_MODELS[readModel];
  const db = openSqliteDatabase(join(dir, `${readModel}-${process.pid}.sqlite`), '');
  const runner = new ProjectionRunner(store, db, open(db));
  const head = await store.lastPosition({ category });
  const events = await store.countAfter('start', { category, limit: Number.MAX_SAFE_INTEGER });
  return {
    run: async () => {
      await runner.start();
      if (head !== undefined) await runner.waitForPosition(head);
      if (!runner.caughtUp()) throw new Error(`${readModel} reached the head but does not report caught up`);
      return events;
    },
    finish: async () => {
      await runner.stop();
      const rows = Number((db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n);
      db.close();
      return rows;
    },
  };
}

/** The file a read model's live copy is built into once per store, for every CLI rebuild to start from. */
const liveTemplate = (dir: string, readModel: ReadModel): string => join(dir, `live-${readModel}.sqlite`);

/** A live read model holding the whole log, as the service keeps it (run in a child of its own, not timed). */
async function buildLive(store: EventStore, readModel: ReadModel, dir: string): Promise<void> {
  const { category, open } = READ_MODELS[readModel];
  const live = openSqliteDatabase(liveTemplate(dir, readModel), '');
  const runner = new ProjectionRunner(store, live, open(live));
  await runner.start();
  const head = await store.lastPosition({ category });
  if (head !== undefined) await runner.waitForPosition(head);
  await runner.stop();
  // Closing the last connection folds the WAL into the file: the file alone is the read model.
  live.close();
}

/**
 * The CLI's rebuild, as `switchboard projections rebuild` runs it in the embedded mode: a process
 * that has done nothing else yet (its code not yet optimised, its store's cache cold) rebuilds
 * beside a copy of the live read model (not timed) and swaps the new generation in (timed, swap included).
 */
async function blueGreen(store: EventStore, readModel: ReadModel, dir: string): Promise<Prepared> {
  const { table, open } = READ_MODELS[readModel];
  const file = join(dir, `live-${readModel}-${process.pid}.sqlite`);
  copyFileSync(liveTemplate(dir, readModel), file);
  let swapMs = 0;
  return {
    run: async () => {
      const result = await rebuildProjection({ store, file, projection: { name: readModel, open } });
      swapMs = result.swapMs;
      return result.events;
    },
    finish: async () => {
      const live = openSqliteDatabase(file, '');
      const rows = Number((live.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n);
      live.close();
      return rows;
    },
    swapMs: () => swapMs,
  };
}

/** CPU of the PostgreSQL backends serving this process's store (none before it ran): the server's share. */
async function backendCpuUs(url: string): Promise<number> {
  const { rows } = await onDatabase(url, (client) => client.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name = $1', [`switchboard-eventstore-${PG_SCHEMA}`]));
  return rows.reduce((sum, { pid }) => sum + processCpuMs(pid) * 1000, 0);
}

async function measure(location: StoreLocation, task: Task): Promise<Measured> {
  const store = openStore(location);
  const prepared = task.kind === 'scan' ? scan(store, task.category) : task.kind === 'rebuild' ? await rebuild(store, task.readModel, task.dir) : await blueGreen(store, task.readModel, task.dir);
  const startRssMb = process.memoryUsage.rss() / 1024 / 1024;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const events = await prepared.run();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const serverCpuUs = 'postgres' in location ? await backendCpuUs(location.postgres) : undefined;
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  const rows = await prepared.finish();
  await store.close();
  const swap = prepared.swapMs ? { swapMs: prepared.swapMs() } : {};
  return { events, seconds, cpuUs: used.user + used.system, serverCpuUs, peakRssMb, startRssMb, ...(rows === undefined ? {} : { rows }), ...swap };
}

function inChild(location: StoreLocation, task: Task): Promise<Measured> {
  return runChild('measure', location, task).then((output) => JSON.parse(output) as Measured);
}

/** This script in a child process, in one of its modes; answers what it printed. */
function runChild(mode: 'measure' | 'live', location: StoreLocation, task: Task): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, SELF, mode, JSON.stringify({ location, task })], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`${mode} ${JSON.stringify(task)} exited with ${code}`))));
  });
}

// ---- the run ----------------------------------------------------------------------------------

const number = (n: number): string => Math.round(n).toLocaleString('en-US');

/** CPU per event, this process's and the PostgreSQL backends' together. */
const cpuPerEvent = (m: Measured): number => (m.cpuUs + (m.serverCpuUs ?? 0)) / m.events;

/** A table row; a rebuild's ratios are to the raw scan of its category: events/s, and CPU per event (scan ÷ rebuild). */
function row(label: string, m: Measured, scan?: Measured): string {
  const rate = m.events / m.seconds;
  const ratio = scan === undefined ? '' : (rate / (scan.events / scan.seconds)).toFixed(2);
  const cpuRatio = scan === undefined ? '' : (cpuPerEvent(scan) / cpuPerEvent(m)).toFixed(2);
  const server = m.serverCpuUs === undefined ? '' : (m.serverCpuUs / m.events).toFixed(1);
  return [label.padEnd(28), number(m.events).padStart(9), number(rate).padStart(10), ratio.padStart(6), (m.cpuUs / m.events).toFixed(1).padStart(10),
    server.padStart(10), cpuRatio.padStart(10), `${m.peakRssMb.toFixed(0)} (${m.startRssMb.toFixed(0)})`.padStart(15), (m.swapMs === undefined ? '' : m.swapMs.toFixed(0)).padStart(8)].join(' ');
}

/** The fastest of the rounds (a busy machine slows some down), with the largest peak RSS seen. */
function best(runs: readonly Measured[]): Measured {
  const fastest = runs.reduce((a, b) => (b.events / b.seconds > a.events / a.seconds ? b : a));
  return { ...fastest, peakRssMb: Math.max(...runs.map((run) => run.peakRssMb)) };
}

async function benchStore(name: string, location: StoreLocation, written: Written, parent: string): Promise<void> {
  // Read-model files of this store's runs (live copies built from it included) apart from another store's.
  const dir = mkdtempSync(join(parent, `${name.toLowerCase()}-`));
  console.log(`\n${name}: ${number(written.messageEvents)} message events (${number(written.outbound)} sent, ${number(written.inbound)} received), ${number(written.sessionEvents)} session events; pages of ${CATCH_UP_PAGE_SIZE}, best of ${ROUNDS}`);
  const expectedRows: Record<ReadModel, number> = { 'message-status': written.outbound, 'message-history': written.outbound + written.inbound, 'session-list': written.liveSessions };
  const tasks: Task[] = [
    { kind: 'scan', category: STREAM_CATEGORY.message }, { kind: 'scan', category: STREAM_CATEGORY.session },
    ...(Object.keys(READ_MODELS) as ReadModel[]).map((readModel) => ({ kind: 'rebuild' as const, readModel, dir })),
    ...(Object.keys(READ_MODELS) as ReadModel[]).map((readModel) => ({ kind: 'blue-green' as const, readModel, dir })),
  ];
  for (const task of tasks) if (task.kind === 'blue-green') await runChild('live', location, task);
  // Round after round, each task once per round: a spell of load on the machine hits all of them alike.
  const runs = tasks.map((): Measured[] => []);
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [i, task] of tasks.entries()) {
      const measured = await inChild(location, task);
      if (task.kind !== 'scan' && measured.rows !== expectedRows[task.readModel]) {
        throw new Error(`${task.readModel} holds ${measured.rows} rows, expected ${expectedRows[task.readModel]}`);
      }
      runs[i]!.push(measured);
    }
  }
  const header = ['events'.padStart(9), 'events/s'.padStart(10), 'ratio'.padStart(6), 'CPU µs/ev'.padStart(10), 'server µs'.padStart(10), 'CPU ratio'.padStart(10), 'RSS MB (start)'.padStart(15), 'swap ms'.padStart(8)];
  console.log(`${''.padEnd(28)} ${header.join(' ')}`);
  const scans = new Map<string, Measured>();
  for (const [i, task] of tasks.entries()) {
    const measured = best(runs[i]!);
    if (task.kind === 'scan') {
      scans.set(task.category, measured);
      console.log(row(`raw scan ${task.category}`, measured));
    } else console.log(row(`${task.kind === 'rebuild' ? 'rebuild' : 'blue/green (CLI)'} ${task.readModel}`, measured, scans.get(READ_MODELS[task.readModel].category)));
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-rebuild-bench-'));
  try {
    const written = trafficOf(EVENTS);
    const file = join(dir, 'events.sqlite');
    const sqlite = new SqliteEventStore(file);
    const started = performance.now();
    await writeTraffic(sqlite, written.facts);
    await sqlite.close();
    console.log(`wrote ${number(written.messageEvents + written.sessionEvents)} events to SQLite in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await benchStore('SQLite', { sqlite: file }, written, dir);
    const skip = POSTGRES ? await postgresSkipReason() : 'BENCH_REBUILD_POSTGRES=0';
    if (skip !== undefined) {
      console.log(`\nPostgreSQL skipped: ${skip}`);
      return;
    }
    const database = await createTestDatabase('sb_rebuild_bench');
    try {
      const postgres = new PostgresEventStore(database.url, { schema: PG_SCHEMA });
      await writeTraffic(postgres, written.facts);
      await postgres.close();
      await onDatabase(database.url, (client) => client.query(`ANALYZE "${PG_SCHEMA}".events`));
      await benchStore('PostgreSQL', { postgres: database.url }, written, dir);
    } finally {
      await database.drop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'measure') {
  const { location, task } = JSON.parse(process.argv[3]!) as { location: StoreLocation; task: Task };
  process.stdout.write(JSON.stringify(await measure(location, task)));
} else if (process.argv[2] === 'live') {
  const { location, task } = JSON.parse(process.argv[3]!) as { location: StoreLocation; task: { readModel: ReadModel; dir: string } };
  const store = openStore(location);
  await buildLive(store, task.readModel, task.dir);
  await store.close();
} else {
  await main();
}
