import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { CATCH_UP_PAGE_SIZE, SqliteEventStore, openSqliteDatabase } from '@switchboard/eventstore';
import type { EventStore, RecordedEvent, Subscription } from '@switchboard/eventstore';
import { CATCH_UP_CACHE_KIB, CATCH_UP_WAL_AUTOCHECKPOINT_PAGES } from '../src/catch-up-tuning.js';
import { CATCH_UP_BATCH_EVENTS, ProjectionRunner } from '../src/projection-runner.js';
import type { Projection } from '../src/projection-runner.js';
import { tempDir } from './support.js';

/** Counts grants per stream in a table: applying an event twice would show as a wrong count. */
function grantCounter(db: DatabaseSync, name = 'grant-counter'): Projection {
  db.exec('CREATE TABLE IF NOT EXISTS grants (stream TEXT PRIMARY KEY, count INTEGER NOT NULL)');
  const upsert = db.prepare(
    'INSERT INTO grants (stream, count) VALUES (?, 1) ON CONFLICT(stream) DO UPDATE SET count = count + 1',
  );
  return { name, category: 'ticket', apply: (event: RecordedEvent) => void upsert.run(event.stream) };
}

/** Lists the positions it applied: a second read model of the same category, beside the counter. */
function positionLog(db: DatabaseSync, name = 'position-log'): Projection {
  db.exec('CREATE TABLE IF NOT EXISTS applied (projection TEXT NOT NULL, position INTEGER NOT NULL)');
  const insert = db.prepare('INSERT INTO applied (projection, position) VALUES (?, ?)');
  return { name, category: 'ticket', apply: (event: RecordedEvent) => void insert.run(name, event.position) };
}

const grant = { type: 'TicketGranted', data: { holder: 'x' } };
const counts = (db: DatabaseSync) => db.prepare('SELECT stream, count FROM grants ORDER BY stream').all();

describe('ProjectionRunner', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  let db: DatabaseSync;

  beforeEach(() => {
    dir = tempDir();
    store = new SqliteEventStore(join(dir.path, 'events.sqlite'));
    db = new DatabaseSync(join(dir.path, 'read.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    db.close();
    dir.remove();
  });

  it('catches up with stored events, then applies live ones, only from its category', async () => {
    await store.append('ticket-a', [grant, grant], { expectedRevision: 'no_stream' });
    await store.append('other-a', [grant], { expectedRevision: 'no_stream' });
    const runner = new ProjectionRunner(store, db, grantCounter(db));
    await runner.start();
    const live = await store.append('ticket-b', [grant], { expectedRevision: 'no_stream' });
    await runner.waitForPosition(live.position);
    expect(runner.caughtUp()).toBe(true);
    expect(counts(db)).toEqual([{ stream: 'ticket-a', count: 2 }, { stream: 'ticket-b', count: 1 }]);
    await runner.stop();
  });

  it('raises the page cache and the WAL checkpoint interval while catching up, and gives both back once caught up', async () => {
    const pragma = (name: string) => Object.values(db.prepare(`PRAGMA ${name}`).get() as object)[0] as number;
    const before = { cache: pragma('cache_size'), checkpoint: pragma('wal_autocheckpoint') };
    await store.append('ticket-a', [grant, grant], { expectedRevision: 'no_stream' });
    const seen: { cache: number; checkpoint: number }[] = [];
    const counter = grantCounter(db);
    // Two runners on one connection (as messaging's read models share one): each catch-up sees the
    // raised settings, and the connection ends with its own once both are caught up.
    const watching: Projection = { ...counter, apply: (event) => (seen.push({ cache: pragma('cache_size'), checkpoint: pragma('wal_autocheckpoint') }), counter.apply(event)) };
    const first = new ProjectionRunner(store, db, watching);
    const second = new ProjectionRunner(store, db, { ...grantCounter(db), name: 'second' });
    await first.start();
    await second.start();
    await first.waitForPosition(1n);
    await second.waitForPosition(1n);
    expect(seen).toEqual([
      { cache: -CATCH_UP_CACHE_KIB, checkpoint: CATCH_UP_WAL_AUTOCHECKPOINT_PAGES },
      { cache: -CATCH_UP_CACHE_KIB, checkpoint: CATCH_UP_WAL_AUTOCHECKPOINT_PAGES },
    ]);
    expect({ cache: pragma('cache_size'), checkpoint: pragma('wal_autocheckpoint') }).toEqual(before);
    // Live events are applied with the connection's own settings.
    const live = await store.append('ticket-a', [grant], { expectedRevision: 1n });
    await first.waitForPosition(live.position);
    expect(seen.at(-1)).toEqual(before);
    await first.stop();
    await second.stop();
  });

  it('resumes from its checkpoint after a restart without applying anything twice', async () => {
    await store.append('ticket-a', [grant], { expectedRevision: 'no_stream' });
    const first = new ProjectionRunner(store, db, grantCounter(db));
    await first.start();
    await first.waitForPosition(0n);
    await first.stop();
    const more = await store.append('ticket-a', [grant], { expectedRevision: 0n });
    const second = new ProjectionRunner(store, db, grantCounter(db));
    await second.start();
    await second.waitForPosition(more.position);
    expect(counts(db)).toEqual([{ stream: 'ticket-a', count: 2 }]);
    await second.stop();
  });

  it('stops at an event it cannot apply, reports it and is no longer caught up', async () => {
    const bad = await store.append('ticket-a', [grant], { expectedRevision: 'no_stream' });
    const errors: unknown[] = [];
    const failing: Projection = { name: 'failing', category: 'ticket', apply: () => { throw new Error('cannot apply'); } };
    const runner = new ProjectionRunner(store, db, failing, { onError: (error) => errors.push(error) });
    await runner.start();
    // A writer waiting for its event to show up learns that it never will.
    await expect(runner.waitForPosition(bad.position)).rejects.toThrow('cannot apply');
    await expect.poll(() => errors.length).toBe(1);
    expect(runner.caughtUp()).toBe(false);
    expect(String(runner.failed())).toContain('cannot apply');
    await runner.stop();
    // The event was not checkpointed: a fixed projection under the same name applies it.
    const fixed = new ProjectionRunner(store, db, { ...grantCounter(db), name: 'failing' });
    await fixed.start();
    await fixed.waitForPosition(bad.position);
    expect(counts(db)).toEqual([{ stream: 'ticket-a', count: 1 }]);
    await fixed.stop();
  });

  it('applies a batch in one transaction: an event it cannot apply undoes the batch and is the one reported', async () => {
    await store.append('ticket-a', [grant, grant, { type: 'TicketBroken', data: {} }], { expectedRevision: 'no_stream' });
    const upsert = grantCounter(db, 'strict');
    const strict: Projection = {
      ...upsert,
      apply: (event) => {
        if (event.type === 'TicketBroken') throw new Error('cannot apply a broken ticket');
        upsert.apply(event);
      },
    };
    const reported: (RecordedEvent | undefined)[] = [];
    const runner = new ProjectionRunner(store, db, strict, { onError: (_error, event) => void reported.push(event) });
    await runner.start();
    await expect.poll(() => reported.length).toBe(1);
    expect(reported[0]).toMatchObject({ stream: 'ticket-a', revision: 2n, type: 'TicketBroken' });
    // The two grants before it were in the same batch: rolled back with it, not applied alone.
    expect(counts(db)).toEqual([]);
    await runner.stop();
  });

  it('hands each applied event to afterApply, in order', async () => {
    const seen: string[] = [];
    const runner = new ProjectionRunner(store, db, grantCounter(db), { afterApply: (events) => void seen.push(...events.map((e) => `${e.stream}@${e.revision}`)) });
    await runner.start();
    const last = await store.append('ticket-a', [grant, grant], { expectedRevision: 'no_stream' });
    await runner.waitForPosition(last.position);
    await expect.poll(() => seen).toEqual(['ticket-a@0', 'ticket-a@1']);
    await runner.stop();
  });

  it('started on a stored log, is caught up only once all of it is applied, and counts its lag from the store', async () => {
    const stored = 2 * CATCH_UP_PAGE_SIZE + 7;
    for (let i = 0; i < stored; i += 100) {
      await store.append(`ticket-${i}`, Array.from({ length: Math.min(100, stored - i) }, () => grant), { expectedRevision: 'no_stream' });
    }
    await store.append('other-a', [grant, grant], { expectedRevision: 'no_stream' });
    // afterApply holds the runner after each batch until the test lets it go on.
    const held: (() => void)[] = [];
    let applied = 0;
    const runner = new ProjectionRunner(store, db, grantCounter(db), {
      afterApply: (events) => {
        applied += events.length;
        return new Promise<void>((resolve) => held.push(resolve));
      },
      catchUpBatchEvents: CATCH_UP_PAGE_SIZE,
    });
    await runner.start();
    for (const page of [CATCH_UP_PAGE_SIZE, 2 * CATCH_UP_PAGE_SIZE]) {
      await expect.poll(() => held.length).toBe(1);
      expect(applied).toBe(page);
      expect(runner.caughtUp()).toBe(false);
      expect(await runner.lag()).toBe(stored - page);
      held.shift()!();
    }
    await expect.poll(() => held.length).toBe(1);
    expect(applied).toBe(stored);
    expect(runner.caughtUp()).toBe(true);
    expect(await runner.lag()).toBe(0);
    held.shift()!();

    // Appended later: lag counts it until it is applied; caught up stays true (it tells about the start).
    const live = await store.append('ticket-live', [grant, grant], { expectedRevision: 'no_stream' });
    await expect.poll(() => held.length).toBe(1);
    expect(await runner.lag()).toBe(0);
    held.shift()!();
    await runner.waitForPosition(live.position);
    expect(counts(db).reduce((sum, row) => sum + Number((row as { count: number }).count), 0)).toBe(stored + 2);
    await runner.stop();
  });

  it('writes what the projection gathered once per batch, in the batch\'s transaction', async () => {
    db.exec('CREATE TABLE batches (size INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO batches (size) VALUES (?)');
    let gathered = 0;
    const batched: Projection = {
      name: 'batched', category: 'ticket',
      apply: () => void (gathered += 1),
      flush: () => {
        insert.run(gathered);
        gathered = 0;
      },
    };
    await store.append('ticket-a', Array.from({ length: CATCH_UP_PAGE_SIZE + 1 }, () => grant), { expectedRevision: 'no_stream' });
    const runner = new ProjectionRunner(store, db, batched, { catchUpBatchEvents: CATCH_UP_PAGE_SIZE });
    await runner.start();
    await runner.waitForPosition((await store.lastPosition({ category: 'ticket' }))!);
    expect(db.prepare('SELECT size FROM batches ORDER BY rowid').all()).toEqual([{ size: CATCH_UP_PAGE_SIZE }, { size: 1 }]);
    await runner.stop();
  });

  it('catching up, applies the pages stored before its start together (10,000 events per transaction, whole pages), later appends as they come', async () => {
    db.exec('CREATE TABLE batches (runner TEXT NOT NULL, size INTEGER NOT NULL)');
    const insert = db.prepare('INSERT INTO batches (runner, size) VALUES (?, ?)');
    const batched = (name: string): Projection => {
      let gathered = 0;
      return {
        name, category: 'ticket',
        apply: () => void (gathered += 1),
        flush: () => {
          insert.run(name, gathered);
          gathered = 0;
        },
      };
    };
    const stored = 6 * CATCH_UP_PAGE_SIZE + 7;
    for (let i = 0; i < stored; i += 1_000) {
      await store.append(`ticket-${i}`, Array.from({ length: Math.min(1_000, stored - i) }, () => grant), { expectedRevision: 'no_stream' });
    }
    const head = (await store.lastPosition({ category: 'ticket' }))!;
    const catchUp = async (runner: ProjectionRunner) => {
      await runner.start();
      await runner.waitForPosition(head);
      expect(runner.caughtUp()).toBe(true);
      const live = await store.append('ticket-live', [grant, grant, grant], { expectedRevision: 'any' });
      await runner.waitForPosition(live.position);
      await runner.stop();
    };
    const sizes = (runner: string) => db.prepare('SELECT size FROM batches WHERE runner = ? ORDER BY rowid').all(runner).map((row) => (row as { size: number }).size);
    await catchUp(new ProjectionRunner(store, db, batched('default')));
    expect(sizes('default')).toEqual([CATCH_UP_BATCH_EVENTS, stored - CATCH_UP_BATCH_EVENTS, 3]);
    // A size that is not a whole number of pages: a batch never goes past it, and no page is split
    // (the first runner's 3 live events were stored before this one started: its last page has 10).
    await catchUp(new ProjectionRunner(store, db, batched('capped'), { catchUpBatchEvents: 1.5 * CATCH_UP_PAGE_SIZE }));
    expect(sizes('capped')).toEqual([...Array(5).fill(CATCH_UP_PAGE_SIZE), CATCH_UP_PAGE_SIZE + 10, 3]);
  });

  it('fails, and says so to whoever waits, when its subscription ends without being stopped (a stream closed by the server)', async () => {
    const first = await store.append('ticket-a', [grant], { expectedRevision: 'no_stream' });
    const later = await store.append('ticket-b', [grant], { expectedRevision: 'no_stream' });
    // The store hands over the first event and then ends its subscription, as a closed stream would.
    const ending = {
      lastPosition: (options: { category?: string }) => store.lastPosition(options),
      countAfter: (...args: Parameters<SqliteEventStore['countAfter']>) => store.countAfter(...args),
      subscribe: (): Subscription => ({
        close: async () => undefined,
        async *[Symbol.asyncIterator]() {
          yield (await store.readAll({ category: 'ticket', maxCount: 1 }));
        },
      }),
    } as unknown as EventStore;
    const reported: [string, unknown][] = [];
    const runner = new ProjectionRunner(ending, db, grantCounter(db), { onError: (error, event) => reported.push([(error as Error).message, event]) });
    await runner.start();
    await expect(runner.waitForPosition(later.position)).rejects.toThrow('the ticket subscription of projection grant-counter ended');
    // Told to the service's log too, with no event to blame.
    expect(reported).toEqual([['the ticket subscription of projection grant-counter ended', undefined]]);
    // The first event was gathered for a batch the end cut short: not applied, and not checkpointed.
    await expect(runner.waitForPosition(first.position)).rejects.toThrow('ended');
    expect(runner.caughtUp()).toBe(false);
    expect(runner.failed()).toBeInstanceOf(Error);
    await runner.stop();
  });

  it('skips what its stored checkpoint says is applied already (a read model swapped in by a rebuild), and applies the rest once', async () => {
    await store.append('ticket-a', [grant], { expectedRevision: 'no_stream' });
    const runner = new ProjectionRunner(store, db, grantCounter(db));
    await runner.start();
    await runner.waitForPosition(0n);
    // Another writer applies the next two grants and moves the checkpoint on, in one transaction.
    const ahead = await store.append('ticket-a', [grant, grant], { expectedRevision: 0n });
    db.exec(`BEGIN; UPDATE grants SET count = 3; UPDATE checkpoints SET position = ${ahead.position} WHERE name = 'grant-counter'; COMMIT`);
    const after = await store.append('ticket-a', [grant], { expectedRevision: 2n });
    await runner.waitForPosition(after.position);
    expect(counts(db)).toEqual([{ stream: 'ticket-a', count: 4 }]);
    await runner.stop();
  });

  it('waits for another connection\'s write lock without holding up the process', async () => {
    const file = join(dir.path, 'shared.sqlite');
    const shared = openSqliteDatabase(file, '', { busyTimeoutMs: 5_000 });
    const other = openSqliteDatabase(file, '');
    const runner = new ProjectionRunner(store, shared, grantCounter(shared));
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 5);
    try {
      await runner.start();
      other.exec('BEGIN IMMEDIATE');
      const appended = await store.append('ticket-a', [grant], { expectedRevision: 'no_stream' });
      ticks = 0;
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Timers ran meanwhile: the runner's wait for the lock blocked nothing.
      expect(ticks).toBeGreaterThan(10);
      expect(counts(shared)).toEqual([]);
      other.exec('COMMIT');
      await runner.waitForPosition(appended.position);
      expect(counts(shared)).toEqual([{ stream: 'ticket-a', count: 1 }]);
    } finally {
      clearInterval(ticker);
      if (other.isTransaction) other.exec('ROLLBACK');
      await runner.stop();
      shared.close();
      other.close();
    }
  });

  describe('with several read models of one category', () => {
    const logged = () => (db.prepare('SELECT position FROM applied ORDER BY position').all() as { position: bigint | number }[]).map((r) => Number(r.position));
    const checkpoint = (name: string) => (db.prepare('SELECT position FROM checkpoints WHERE name = ?').get(name) as { position: number | bigint } | undefined)?.position;

    it('reads the category once and applies each batch to every read model in one transaction, each with its own checkpoint', async () => {
      const stored = await store.append('ticket-a', [grant, grant], { expectedRevision: 'no_stream' });
      let subscriptions = 0;
      const subscribe = store.subscribe.bind(store);
      store.subscribe = (options) => (subscriptions += 1, subscribe(options));
      let transactions = 0;
      const exec = db.exec.bind(db);
      db.exec = (sql: string) => (sql === 'COMMIT' && (transactions += 1), exec(sql));
      const runner = new ProjectionRunner(store, db, [grantCounter(db), positionLog(db)]);
      await runner.start();
      await runner.waitForPosition(stored.position);
      const before = transactions;
      const live = await store.append('ticket-b', [grant], { expectedRevision: 'no_stream' });
      await runner.waitForPosition(live.position);
      expect(subscriptions).toBe(1);
      expect(transactions - before).toBe(1);
      expect(counts(db)).toEqual([{ stream: 'ticket-a', count: 2 }, { stream: 'ticket-b', count: 1 }]);
      expect(logged()).toEqual([Number(stored.position) - 1, Number(stored.position), Number(live.position)]);
      expect([checkpoint('grant-counter'), checkpoint('position-log')].map(Number)).toEqual([Number(live.position), Number(live.position)]);
      await runner.stop();
    });

    it('brings a read model that is behind (rebuilt alone, or new) up to the other, which applies nothing twice', async () => {
      const first = await store.append('ticket-a', [grant, grant], { expectedRevision: 'no_stream' });
      const counter = new ProjectionRunner(store, db, grantCounter(db));
      await counter.start();
      await counter.waitForPosition(first.position);
      await counter.stop();
      const both = new ProjectionRunner(store, db, [grantCounter(db), positionLog(db)]);
      await both.start();
      await both.waitForPosition(first.position);
      expect(both.caughtUp()).toBe(true);
      const live = await store.append('ticket-a', [grant], { expectedRevision: 1n });
      await both.waitForPosition(live.position);
      expect(counts(db)).toEqual([{ stream: 'ticket-a', count: 3 }]);
      expect(logged()).toEqual([Number(first.position) - 1, Number(first.position), Number(live.position)]);
      await both.stop();
    });

    it('stops both at an event one of them cannot apply, names that one, and keeps nothing of the batch', async () => {
      await store.append('ticket-a', [grant, { type: 'TicketBroken', data: {} }], { expectedRevision: 'no_stream' });
      const log = positionLog(db, 'strict-log');
      const strict: Projection = { ...log, apply: (event) => {
        if (event.type === 'TicketBroken') throw new Error('cannot apply a broken ticket');
        log.apply(event);
      } };
      const reported: [RecordedEvent | undefined, string | undefined][] = [];
      const runner = new ProjectionRunner(store, db, [grantCounter(db), strict], { onError: (_error, event, projection) => void reported.push([event, projection]) });
      await runner.start();
      await expect.poll(() => reported.length).toBe(1);
      expect(reported[0]).toEqual([expect.objectContaining({ type: 'TicketBroken' }), 'strict-log']);
      expect(counts(db)).toEqual([]);
      expect(logged()).toEqual([]);
      expect(runner.caughtUp()).toBe(false);
      await runner.stop();
    });

    it('refuses read models of different categories', () => {
      expect(() => new ProjectionRunner(store, db, [grantCounter(db), { ...positionLog(db), category: 'other' }])).toThrow(TypeError);
    });
  });
});
