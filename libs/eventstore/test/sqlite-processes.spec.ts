import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore, type RecordedEvent } from '../src/index.js';

const worker = path.join(import.meta.dirname, 'fixtures/append-worker.mjs');
let directory: string;
let file: string;

beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-eventstore-processes-'));
  file = path.join(directory, 'events.sqlite');
});
afterEach(() => fs.rmSync(directory, { recursive: true, force: true }));

function startWorker(...args: string[]): ChildProcess {
  return spawn(process.execPath, [worker, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Resolves with the worker's stdout once it exits successfully, rejects with its stderr otherwise. */
function finished(child: ChildProcess): Promise<string> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`worker exited ${code}: ${stderr}`))));
  });
}

describe('SQLite shared by several processes', () => {
  it('opens a file another process is still setting up: the switch to WAL waits for its write lock', async () => {
    const holder = spawn(process.execPath, [path.join(import.meta.dirname, 'fixtures/write-lock-holder.mjs'), file, '300'], { stdio: ['ignore', 'pipe', 'inherit'] });
    const released = finished(holder);
    await new Promise((resolve) => holder.stdout!.once('data', resolve));
    const opened = performance.now();
    // SQLite answers this switch with SQLITE_BUSY at once, busy timeout or not; it used to fail start-up.
    const store = new SqliteEventStore(file);
    expect(performance.now() - opened).toBeGreaterThan(100);
    await released;
    await store.append('ticket-a', [{ type: 'TicketOpened', data: {} }], { expectedRevision: 'no_stream' });
    expect(await store.readStream('ticket-a')).toHaveLength(1);
    await store.close();
    const check = new DatabaseSync(file);
    expect(check.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    check.close();
  });

  it('a write mark sees another process\'s append to its category (its commit, not a wake-up, tells)', async () => {
    const store = new SqliteEventStore(file);
    const mark = store.writeMark('usage')!;
    const otherCategory = store.writeMark('account')!;
    await finished(startWorker('contend', file, 'usage-acc_1-2026-11-21', '1', 'a'));
    // Asked at once: the file system's report of the commit may not have arrived, the commit is there.
    expect(mark.unchanged()).toBe(false);
    // Another process's commit names no category here: every mark of the file counts it.
    expect(otherCategory.unchanged()).toBe(false);
    expect(store.writeMark('usage')!.unchanged()).toBe(true);
    await store.close();
  });

  it('keeps every event of two processes racing on one stream, with contiguous revisions', async () => {
    const stream = 'usage-acc_1-2026-11-21';
    // Created up front so that both workers contend on revisions, not on creating the schema.
    const observer = new SqliteEventStore(file, { pollIntervalMs: 10 });
    const seenLive: RecordedEvent[] = [];
    const subscription = observer.subscribe({ category: 'usage', from: 'start' });
    const observing = (async () => {
      for await (const batch of subscription) if (seenLive.push(...batch) === 300) break;
    })();

    const outputs = await Promise.all([
      finished(startWorker('contend', file, stream, '150', 'a')),
      finished(startWorker('contend', file, stream, '150', 'b')),
    ]);
    await observing;

    const stored = await observer.readStream(stream);
    expect(stored.map((e) => e.revision)).toEqual(Array.from({ length: 300 }, (_, i) => BigInt(i)));
    for (const writer of ['a', 'b']) {
      const numbers = stored.map((e) => e.data as { writer: string; n: number }).filter((d) => d.writer === writer).map((d) => d.n);
      expect(numbers).toEqual(Array.from({ length: 150 }, (_, i) => i));
    }
    // Appends from other processes reach a live subscription here, in order.
    expect(seenLive.map((e) => e.id)).toEqual(stored.map((e) => e.id));
    const conflicts = outputs.map((out) => (JSON.parse(out) as { conflicts: number }).conflicts);
    console.info(`two writer processes, 300 appends, ${conflicts[0]! + conflicts[1]!} revision conflicts retried`);
    await observer.close();
  });

  it("wakes a live subscription on another process's appends, in order, long before its fallback poll", async () => {
    const stream = 'usage-acc_2-2026-11-21';
    // A poll that never comes within the test: only the file system's report of the commits can wake it.
    const observer = new SqliteEventStore(file, { pollIntervalMs: 600_000 });
    const seenLive: RecordedEvent[] = [];
    const subscription = observer.subscribe({ category: 'usage', from: 'start' });
    // Caught up (nothing yet) and waiting before the writer starts.
    const first = subscription[Symbol.asyncIterator]().next();
    await new Promise((resolve) => setTimeout(resolve, 100));

    await finished(startWorker('contend', file, stream, '20', 'a'));
    const seen = await Promise.race([
      (async () => {
        const batch = await first;
        if (!batch.done) seenLive.push(...batch.value);
        for await (const more of subscription) if (seenLive.push(...more) >= 20) break;
        return 'all seen';
      })(),
      new Promise((resolve) => setTimeout(() => resolve(`only ${seenLive.length} of 20 seen after 20 s`), 20_000)),
    ]);

    expect(seen).toBe('all seen');
    expect(seenLive.map((e) => (e.data as { n: number }).n)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    await observer.close();
  }, 30_000);

  it('keeps every acknowledged append when the writer is SIGKILLed right after', async () => {
    const stream = 'message-msg_durability';
    const child = spawn(process.execPath, [worker, 'acknowledge', file, stream], { stdio: ['ignore', 'pipe', 'inherit'] });
    const acknowledged = await readAcknowledgementsThenKill(child, 200);

    const reopened = new SqliteEventStore(file);
    const stored = await reopened.readStream(stream);
    await reopened.close();
    expect(acknowledged.length).toBeGreaterThanOrEqual(200);
    expect(stored.length).toBeGreaterThanOrEqual(acknowledged.length);
    expect(stored.slice(0, acknowledged.length).map((e) => e.revision)).toEqual(acknowledged);
    expect(stored.map((e) => e.revision)).toEqual(stored.map((_, i) => BigInt(i)));
  });
});

/** Collects "ack <revision>" lines and SIGKILLs the writer as soon as `count` have arrived. */
function readAcknowledgementsThenKill(child: ChildProcess, count: number): Promise<bigint[]> {
  const acknowledged: bigint[] = [];
  let pending = '';
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.stdout?.on('data', (chunk: Buffer) => {
      const lines = (pending + chunk.toString()).split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) acknowledged.push(BigInt(line.replace('ack ', '')));
      if (acknowledged.length >= count && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    child.on('exit', (_code, signal) => {
      if (signal === 'SIGKILL') resolve(acknowledged);
      else reject(new Error(`writer stopped by itself (signal ${signal}) before being killed`));
    });
  });
}
