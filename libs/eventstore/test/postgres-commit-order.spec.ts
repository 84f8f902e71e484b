import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresEventStore, WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '../src/index.js';
import { onDatabase } from '../src/testing/index.js';
import { freshCategory, iteratorOf, nextEvents } from './contract/helpers.js';
import { usePostgresDatabase } from './postgres-target.js';

const database = await usePostgresDatabase();
const title = database.skipReason ? `PostgreSQL under concurrent writers (skipped: ${database.skipReason})` : 'PostgreSQL under concurrent writers';

// Each store has a pool of its own: as many writers as processes would be.
let stores: EventStore[] = [];
const openStores = (count: number, schema = 'commit_order'): PostgresEventStore[] => {
  const opened = Array.from({ length: count }, () => new PostgresEventStore(database.url(), { schema }));
  stores.push(...opened);
  return opened;
};
afterEach(async () => {
  await Promise.all(stores.map((store) => store.close()));
  stores = [];
});

describe.skipIf(database.skipReason !== undefined)(title, () => {
  it('lets exactly one of eight processes win each revision of one stream', async () => {
    const writers = openStores(8);
    const stream = `usage-${randomUUID()}`;
    await writers[0]!.append(stream, [{ type: 'Opened', data: {} }], { expectedRevision: 'no_stream' });
    for (let revision = 0n; revision < 15n; revision += 1n) {
      const outcomes = await Promise.allSettled(writers.map((writer, w) =>
        writer.append(stream, [{ type: 'Reserved', data: { w } }], { expectedRevision: revision })));
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      const lost = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason as unknown] : []));
      expect(won).toHaveLength(1);
      expect(won[0]?.value.nextRevision).toBe(revision + 1n);
      for (const reason of lost) {
        expect(reason).toBeInstanceOf(WrongExpectedRevisionError);
        expect(reason).toMatchObject({ expected: revision, actual: revision + 1n });
      }
    }
    const stored = await writers[7]!.readStream(stream);
    expect(stored.map((event) => event.revision)).toEqual(Array.from({ length: 16 }, (_, i) => BigInt(i)));
  });

  // The commit-order problem, made to happen: an append is held inside its transaction, after it
  // drew its position and before it commits, while another append runs. Were positions drawn
  // without the append lock, the second would commit the next position first, the subscriber
  // would read it and move its checkpoint past the held one, and never deliver it.
  it('never makes a later position readable while an earlier one is uncommitted', async () => {
    const [held, other, subscriber] = openStores(3, 'held_back');
    await held!.append('boot-1', [{ type: 'Booted', data: {} }], { expectedRevision: 'no_stream' });
    await onDatabase(database.url(), (client) => client.query(holdAppendsOfTypeHeld));
    const received = nextEvents(iteratorOf(subscriber!.subscribe({ from: 'start' })), 3, 10_000);
    // Awaited at the end; an assertion failing before that must not leave its rejection unhandled.
    received.catch(() => undefined);

    await onDatabase(database.url(), async (gate) => {
      await gate.query('SELECT pg_advisory_lock($1)', [gateKey]);
      const heldAppend = held!.append('order-1', [{ type: 'Held', data: {} }], { expectedRevision: 'no_stream' });
      await expect.poll(() => waitersOn(gate, gateKey), { timeout: 5_000 }).toBe(1);
      const otherAppend = other!.append('order-2', [{ type: 'Other', data: {} }], { expectedRevision: 'no_stream' });
      const settledEarly = await Promise.race([otherAppend.then(() => true), sleep(500).then(() => false)]);
      await gate.query('SELECT pg_advisory_unlock($1)', [gateKey]);

      expect(settledEarly, 'the second append committed while the first was still open').toBe(false);
      expect((await otherAppend).position).toBeGreaterThan((await heldAppend).position);
    });
    expect((await received).map((event) => event.type)).toEqual(['Booted', 'Held', 'Other']);
  });

  // The same under load, with no gate: writers in separate pools race for positions, while one
  // subscriber reads from the start and another joins halfway; each must see every event once, in order.
  it('delivers every event of 8 writers x 200 appends exactly once and in position order to live subscribers', async () => {
    const writerCount = 8;
    const appendsEach = 200;
    const total = writerCount * appendsEach;
    const category = freshCategory();
    const [early, late, ...writers] = openStores(writerCount + 2);

    const writersDone = deferred();
    const fromTheStart = collect(early!, category, total, writersDone.promise);
    const lateSubscriber = deferred();
    const appended = new Map<string, bigint>();
    const writing = writers.map(async (writer, w) => {
      const revisions = new Map<string, bigint>();
      for (let n = 0; n < appendsEach; n += 1) {
        // Five streams per writer, so appends of different writers never conflict, only race.
        const stream = `${category}-w${w}s${n % 5}`;
        const id = randomUUID();
        const { nextRevision, position } = await writer.append(stream, [{ type: 'Counted', data: { w, n }, id }], {
          expectedRevision: revisions.get(stream) ?? 'no_stream',
        });
        revisions.set(stream, nextRevision);
        appended.set(id, position);
        if (n === appendsEach / 2 && w === 0) lateSubscriber.resolve();
      }
    });
    // Joins halfway, catching up while the writers keep going.
    const fromHalfway = lateSubscriber.promise.then(() => collect(late!, category, total, writersDone.promise));
    await Promise.all(writing).finally(writersDone.resolve);

    const log = await early!.readAll({ category });
    expect(log).toHaveLength(total);
    expectStrictlyIncreasing(log);
    expect(new Map(log.map((event) => [event.id, event.position]))).toEqual(appended);
    for (const received of [await fromTheStart, await fromHalfway]) {
      const ids = received.map((event) => event.id);
      const distinct = new Set(ids);
      expect({ skipped: log.filter((event) => !distinct.has(event.id)).length, redelivered: ids.length - distinct.size })
        .toEqual({ skipped: 0, redelivered: 0 });
      expectStrictlyIncreasing(received);
      expect(ids).toEqual(log.map((event) => event.id));
    }
  }, 120_000);

  it('creates a new schema once when several processes start on it at the same moment', async () => {
    const schema = `fresh_${randomUUID().replaceAll('-', '').slice(0, 8)}`;
    const starting = openStores(6, schema);
    const results = await Promise.all(starting.map((store, i) =>
      store.append(`boot-${i}`, [{ type: 'Started', data: { i } }], { expectedRevision: 'no_stream' })));
    expect(new Set(results.map((result) => result.position)).size).toBe(6);
    expect(await starting[0]!.readAll()).toHaveLength(6);
  });
});

// A trigger that parks an append of a `Held` event inside its transaction (after its position was
// drawn) until the test releases the gate lock.
const gateKey = 4_242;
const holdAppendsOfTypeHeld = `
  CREATE FUNCTION held_back.wait_at_gate() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF NEW.type = 'Held' THEN PERFORM pg_advisory_xact_lock(${gateKey}); END IF;
    RETURN NEW;
  END $$;
  CREATE TRIGGER wait_at_gate AFTER INSERT ON held_back.events FOR EACH ROW EXECUTE FUNCTION held_back.wait_at_gate();`;

async function waitersOn(client: pg.Client, key: number): Promise<number> {
  const { rows } = await client.query<{ waiting: number }>(
    "SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted", [key],
  );
  return rows[0]!.waiting;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What a subscription from the start yields until `count` events arrived, or until 10 s after the
 * writers finished: an event the subscriber skipped shows as a difference, not as a hang.
 */
async function collect(store: EventStore, category: string, count: number, writersDone: Promise<unknown>): Promise<RecordedEvent[]> {
  const giveUp = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  void writersDone.then(() => {
    timer = setTimeout(() => giveUp.abort(), 10_000);
  }, () => giveUp.abort());
  const received: RecordedEvent[] = [];
  try {
    for await (const batch of store.subscribe({ category, from: 'start', signal: giveUp.signal })) {
      received.push(...batch);
      if (received.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
  }
  return received;
}

function expectStrictlyIncreasing(events: readonly RecordedEvent[]): void {
  const outOfOrder = events.findIndex((event, i) => i > 0 && event.position <= events[i - 1]!.position);
  expect(outOfOrder, `position ${events[outOfOrder]?.position} follows ${events[outOfOrder - 1]?.position}`).toBe(-1);
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
