import { randomUUID } from 'node:crypto';
import { processMetrics } from '@switchboard/telemetry';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresEventStore, WrongExpectedRevisionError, verifyStream, type PostgresEventStoreOptions, type RecordedEvent } from '../src/index.js';
import { onDatabase } from '../src/testing/index.js';
import { readAnnouncement } from '../src/postgres/append-announcement.js';
import { iteratorOf, nextEvents, withTimeout } from './contract/helpers.js';
import { usePostgresDatabase } from './postgres-target.js';

const database = await usePostgresDatabase();
const title = database.skipReason ? `PostgresEventStore (skipped: ${database.skipReason})` : 'PostgresEventStore';

let stores: PostgresEventStore[] = [];
const open = (options: PostgresEventStoreOptions = {}): PostgresEventStore => {
  const store = new PostgresEventStore(database.url(), { schema: 'behaviour', ...options });
  stores.push(store);
  return store;
};
afterEach(async () => {
  await Promise.all(stores.map((store) => store.close()));
  stores = [];
});

/** The backends a store's pool and LISTEN connection hold (by the name they give the server), with their last query. */
const connectionsOf = (schema: string) => onDatabase(database.url(), async (client) => {
  const { rows } = await client.query<{ pid: number; query: string }>(
    'SELECT pid, query FROM pg_stat_activity WHERE application_name = $1', [`switchboard-eventstore-${schema}`],
  );
  return rows;
});
const listenersOf = async (schema: string) => (await connectionsOf(schema)).filter(({ query }) => query.startsWith('LISTEN'));

describe.skipIf(database.skipReason !== undefined)(title, () => {
  it('keeps each schema to itself: same stream names, separate logs, separate positions', async () => {
    const [sessions, quota] = [open({ schema: 'iso_sessions' }), open({ schema: 'iso_quota' })];
    await sessions.append('account-acc_1', [{ type: 'SessionOpened', data: { s: 1 } }], { expectedRevision: 'no_stream' });
    const quotaAppend = await quota.append('account-acc_1', [{ type: 'QuotaGranted', data: { q: 1 } }], { expectedRevision: 'no_stream' });

    expect(quotaAppend).toEqual({ nextRevision: 0n, position: 1n });
    expect((await sessions.readStream('account-acc_1')).map((e) => e.type)).toEqual(['SessionOpened']);
    expect((await quota.readAll()).map((e) => e.type)).toEqual(['QuotaGranted']);
    const subscription = quota.subscribe({ from: 'start' });
    expect((await nextEvents(iteratorOf(subscription), 1)).map((e) => e.type)).toEqual(['QuotaGranted']);
    await subscription.close();
    const tables = await onDatabase(database.url(), async (client) => (await client.query<{ table: string }>(
      "SELECT table_schema || '.' || table_name AS table FROM information_schema.tables WHERE table_schema LIKE 'iso_%' ORDER BY 1",
    )).rows.map((row) => row.table));
    expect(tables).toEqual(['iso_quota.events', 'iso_sessions.events']);
  });

  it('wakes a live subscription on NOTIFY from another process, long before its poll', async () => {
    const subscriber = open({ pollIntervalMs: 60_000 });
    const writer = open();
    const stream = `ping-${randomUUID()}`;
    const subscription = subscriber.subscribe({ category: 'ping', from: 'start' });
    const next = iteratorOf(subscription).next();
    // Let the subscription catch up (nothing yet) and settle into its wait.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const appendedAt = Date.now();
    await writer.append(stream, [{ type: 'Pinged', data: {} }], { expectedRevision: 'no_stream' });
    const delivered = await withTimeout(next, 5_000, 'no wake-up');
    expect(delivered.value).toMatchObject({ stream, type: 'Pinged' });
    expect(Date.now() - appendedAt).toBeLessThan(500);
    await subscription.close();
  });

  it("announces each commit with its store and categories (quoted as data), so listeners wake only what it concerns", async () => {
    const store = open({ schema: 'announce' });
    const payloads = await onDatabase(database.url(), async (client) => {
      const heard: string[] = [];
      client.on('notification', (message) => heard.push(message.payload ?? ''));
      await client.query('LISTEN "eventstore_announce"');
      // One turn: the three appends share one commit.
      await Promise.all([
        store.append('ping-1', [{ type: 'Pinged', data: {} }], { expectedRevision: 'no_stream' }),
        store.append("it's-1", [{ type: 'Quoted', data: {} }], { expectedRevision: 'no_stream' }),
        store.append('ping-2', [{ type: 'Pinged', data: {} }], { expectedRevision: 'no_stream' }),
      ]);
      await expect.poll(() => heard.length, { timeout: 5_000 }).toBeGreaterThan(0);
      return heard;
    });
    expect(payloads.map(readAnnouncement)).toEqual([{ origin: expect.any(String), categories: ['ping', "it's"] }]);
    expect((await store.readAll()).map((e) => [e.stream, e.position])).toEqual([['ping-1', 1n], ["it's-1", 2n], ['ping-2', 3n]]);
  });

  it("counts its round trips: an append on a head its own commit left is one, on a head it must read two, a read one", async () => {
    const store = open({ schema: 'round_trips', poolSize: 1 });
    const roundTrips = async () => (await processMetrics().postgresQueries.get()).values.find((v) => v.labels['schema'] === 'round_trips')?.value ?? 0;
    await store.append('ping-1', [{ type: 'Pinged', data: {} }], { expectedRevision: 'no_stream' });
    let before = await roundTrips();
    await store.append('ping-1', [{ type: 'Pinged', data: {} }], { expectedRevision: 0n });
    expect(await roundTrips()).toBe(before + 1);
    // A new stream is assumed new: one round trip too.
    before = await roundTrips();
    await store.append('ping-2', [{ type: 'Pinged', data: {} }], { expectedRevision: 'no_stream' });
    expect(await roundTrips()).toBe(before + 1);
    await store.readStream('ping-1');
    expect(await roundTrips()).toBe(before + 2);
    // A stream it never wrote: its head is read under the lock.
    const other = open({ schema: 'round_trips' });
    await other.append('ping-3', [{ type: 'Pinged', data: {} }], { expectedRevision: 'no_stream' });
    before = await roundTrips();
    await store.append('ping-3', [{ type: 'Pinged', data: {} }], { expectedRevision: 0n });
    expect(await roundTrips()).toBe(before + 2);
    // Expecting anything of a stream it never wrote: no guess, the head is read.
    await other.append('ping-4', [{ type: 'Pinged', data: {} }], { expectedRevision: 'no_stream' });
    before = await roundTrips();
    expect((await store.append('ping-4', [{ type: 'Pinged', data: {} }], { expectedRevision: 'any' })).nextRevision).toBe(1n);
    expect(await roundTrips()).toBe(before + 2);
    await other.close();
  });

  it("checks a condition on another stream in the append's one round trip: held, appended; moved, refused after reading the heads", async () => {
    const store = open({ schema: 'condition_trips', poolSize: 1 });
    const other = open({ schema: 'condition_trips' });
    const roundTrips = async () => (await processMetrics().postgresQueries.get()).values.find((v) => v.labels['schema'] === 'condition_trips')?.value ?? 0;
    await other.append('account-1', [{ type: 'Opened', data: {} }], { expectedRevision: 'no_stream' });
    await store.append('usage-1', [{ type: 'Reserved', data: { n: 0 } }], { expectedRevision: 'no_stream' });
    // A stream this store never read nor wrote, at the revision the caller read it at: no read of it.
    let before = await roundTrips();
    await store.append('usage-1', [{ type: 'Reserved', data: { n: 1 } }], { expectedRevision: 0n, unchanged: [{ stream: 'account-1', revision: 0n }] });
    expect(await roundTrips()).toBe(before + 1);
    await other.append('account-1', [{ type: 'PlanChanged', data: {} }], { expectedRevision: 0n });
    before = await roundTrips();
    const refused = await store.append('usage-1', [{ type: 'Reserved', data: { n: 2 } }], { expectedRevision: 1n, unchanged: [{ stream: 'account-1', revision: 0n }] }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: 'WrongExpectedRevisionError', stream: 'account-1', actual: 1n });
    // The insert that found the stream moved, the heads read under the lock, the rollback.
    expect(await roundTrips()).toBe(before + 3);
    // The heads read under the lock are remembered: the next append on them is one round trip again.
    before = await roundTrips();
    await store.append('usage-1', [{ type: 'Reserved', data: { n: 2 } }], { expectedRevision: 1n, unchanged: [{ stream: 'account-1', revision: 1n }] });
    expect(await roundTrips()).toBe(before + 1);
    const usage = await other.readStream('usage-1');
    expect(usage.map((event) => event.data)).toEqual([0, 1, 2].map((n) => ({ n })));
    expect(verifyStream(usage).findings).toEqual([]);
    await other.close();
  });

  it("decides again on the heads it reads when another writer moved a head it remembers, and keeps the hash chain", async () => {
    const store = open({ schema: 'moved_heads' });
    const other = open({ schema: 'moved_heads' });
    await store.append('ping-1', [{ type: 'Pinged', data: { n: 0 } }], { expectedRevision: 'no_stream' });
    await store.append('ping-1', [{ type: 'Pinged', data: { n: 1 } }], { expectedRevision: 0n });
    await other.append('ping-1', [{ type: 'Pinged', data: { n: 2 } }], { expectedRevision: 1n });
    // Remembered head 1, actual 2: nothing is inserted at 2, and the append lands at 3.
    expect((await store.append('ping-1', [{ type: 'Pinged', data: { n: 3 } }], { expectedRevision: 'any' })).nextRevision).toBe(3n);
    // An expectation that matches the remembered head but not the stream's is the conflict it is.
    await other.append('ping-1', [{ type: 'Pinged', data: { n: 4 } }], { expectedRevision: 3n });
    const conflict = await store.append('ping-1', [{ type: 'Pinged', data: { n: 5 } }], { expectedRevision: 3n }).catch((error: unknown) => error);
    expect(conflict).toBeInstanceOf(WrongExpectedRevisionError);
    expect((conflict as WrongExpectedRevisionError).actual).toBe(4n);
    // A stream that exists already is not new: expecting none fails, whoever wrote it.
    await other.append('ping-2', [{ type: 'Pinged', data: {} }], { expectedRevision: 'no_stream' });
    await expect(store.append('ping-2', [{ type: 'Pinged', data: {} }], { expectedRevision: 'no_stream' })).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    const stream = await store.readStream('ping-1');
    expect(stream.map((event) => event.data)).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })));
    expect(verifyStream(stream).findings).toEqual([]);
    await other.close();
  });

  it('takes a head that went back (a database restored from an older backup) for the conflict it is, leaving no gap and announcing nothing', async () => {
    const store = open({ schema: 'restored' });
    await store.append('ping-1', [{ type: 'Pinged', data: { n: 0 } }, { type: 'Pinged', data: { n: 1 } }], { expectedRevision: 'no_stream' });
    await onDatabase(database.url(), async (client) => {
      const heard: string[] = [];
      client.on('notification', (message) => heard.push(message.payload ?? ''));
      await client.query('LISTEN "eventstore_restored"');
      await client.query(`DELETE FROM restored.events WHERE stream = 'ping-1' AND revision = 1`);
      const refusal = await store.append('ping-1', [{ type: 'Pinged', data: { n: 2 } }], { expectedRevision: 1n }).catch((error: unknown) => error);
      expect(refusal).toMatchObject({ name: 'WrongExpectedRevisionError', expected: 1n, actual: 0n });
      await store.append('ping-1', [{ type: 'Pinged', data: { n: 1 } }], { expectedRevision: 0n });
      // The refused append announced nothing: the one announcement is the commit that followed.
      await expect.poll(() => heard.length, { timeout: 5_000 }).toBeGreaterThan(0);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).toHaveLength(1);
    });
    const stream = await store.readStream('ping-1');
    expect(stream.map((event) => event.revision)).toEqual([0n, 1n]);
    expect(verifyStream(stream).findings).toEqual([]);
  });

  it('chains on the head as it is when a restored database was written again up to the revision it remembers', async () => {
    const store = open({ schema: 'rewritten' });
    const other = open({ schema: 'rewritten' });
    await store.append('ping-1', [{ type: 'Pinged', data: { n: 0 } }, { type: 'Pinged', data: { n: 1 } }], { expectedRevision: 'no_stream' });
    // Restored from before revision 1, then another writer takes revision 1 with another event.
    await onDatabase(database.url(), (client) => client.query(`DELETE FROM rewritten.events WHERE stream = 'ping-1' AND revision = 1`));
    await other.append('ping-1', [{ type: 'Pinged', data: { n: 'elsewhere' } }], { expectedRevision: 0n });
    // Same revision, another hash: the head this store remembers is not the stream's any more.
    await store.append('ping-1', [{ type: 'Pinged', data: { n: 2 } }], { expectedRevision: 1n });
    const stream = await store.readStream('ping-1');
    expect(stream.map((event) => event.data)).toEqual([{ n: 0 }, { n: 'elsewhere' }, { n: 2 }]);
    expect(verifyStream(stream).findings).toEqual([]);
  });

  it("hands a live subscription its own appends as a read returns them (recorded_at included), with no read of its own", async () => {
    const store = open({ schema: 'handed_over' });
    const roundTrips = async () => (await processMetrics().postgresQueries.get()).values.find((v) => v.labels['schema'] === 'handed_over')?.value ?? 0;
    const live = store.subscribe({ category: 'message', from: 'start' })[Symbol.asyncIterator]();
    const received: RecordedEvent[] = [];
    const receive = async (count: number) => {
      while (received.length < count) received.push(...(await live.next()).value!);
    };
    await store.append('message-m1', [{ type: 'Accepted', data: { b: 1, a: [2, '\\"'] } }], { expectedRevision: 'no_stream' });
    await receive(1);
    const before = await roundTrips();
    await store.append('message-m1', [{ type: 'Sent', data: {} }, { type: 'Read', data: { at: new Date(5) } }], { expectedRevision: 0n });
    await receive(3);
    // The append's one round trip (its head known from the first), and no read.
    expect(await roundTrips()).toBe(before + 1);
    expect(received).toEqual(await store.readAll({ category: 'message' }));
    await live.return?.(undefined);
    await store.close();
  });

  it('stores any text as it was given, quotes and backslashes included, in every column an append writes', async () => {
    const store = open({ schema: 'quoting' });
    const stream = "o'brien\\-1";
    const data = { text: "it's a \\ back'slash \\' and \\u0000 and \u0000 and 🙂", nested: ["'", '\\', "\\'"] };
    await store.append(stream, [{ id: "id-'\\", type: "Type'\\", data, metadata: { note: "'; DROP TABLE x; --" } }], { expectedRevision: 'no_stream' });
    const [event] = await store.readStream(stream);
    expect(event).toMatchObject({ stream, id: "id-'\\", type: "Type'\\", data, revision: 0n });
    expect(event!.metadata).toMatchObject({ note: "'; DROP TABLE x; --" });
  });

  it('keeps delivering when its LISTEN connection is killed: polls, then listens again', async () => {
    const subscriber = open({ schema: 'relisten', pollIntervalMs: 200 });
    const writer = open({ schema: 'relisten' });
    const iterator = iteratorOf(subscriber.subscribe({ from: 'start' }));
    await writer.append('ping-1', [{ type: 'Pinged', data: { n: 1 } }], { expectedRevision: 'no_stream' });
    await nextEvents(iterator, 1);
    const [killed, ...others] = await listenersOf('relisten');
    expect(others).toEqual([]);
    await onDatabase(database.url(), (client) => client.query('SELECT pg_terminate_backend($1)', [killed!.pid]));

    await writer.append('ping-1', [{ type: 'Pinged', data: { n: 2 } }], { expectedRevision: 0n });
    expect((await nextEvents(iterator, 1)).map((e) => e.data)).toEqual([{ n: 2 }]);
    // The subscription re-opens LISTEN at one of its reads, so keep it reading.
    const third = nextEvents(iterator, 1);
    await expect.poll(async () => (await listenersOf('relisten')).filter(({ pid }) => pid !== killed!.pid), { timeout: 5_000 })
      .toHaveLength(1);
    await writer.append('ping-1', [{ type: 'Pinged', data: { n: 3 } }], { expectedRevision: 1n });
    expect((await third).map((e) => e.data)).toEqual([{ n: 3 }]);
  });

  it('closes every connection it opened, pool and LISTEN alike', async () => {
    const store = open({ schema: 'closing' });
    const subscription = store.subscribe({ from: 'start' });
    const pending = iteratorOf(subscription).next();
    await store.append('ping-1', [{ type: 'Pinged', data: {} }], { expectedRevision: 'no_stream' });
    await pending;
    expect(await listenersOf('closing')).toHaveLength(1);
    await store.close();
    await expect.poll(() => connectionsOf('closing'), { timeout: 5_000 }).toEqual([]);
  });

  it('fails an append that reuses an event id, writing nothing of it, as SQLite does', async () => {
    const store = open();
    const id = randomUUID();
    await store.append('message-msg_1', [{ type: 'MessageAccepted', data: {}, id }], { expectedRevision: 'any' });
    const [reused, other] = await Promise.allSettled([
      store.append('message-msg_1', [{ type: 'MessageSent', data: {} }, { type: 'MessageDelivered', data: {}, id }], { expectedRevision: 'any' }),
      store.append('message-msg_2', [{ type: 'MessageAccepted', data: {} }], { expectedRevision: 'no_stream' }),
    ]);
    expect(reused).toMatchObject({ status: 'rejected', reason: { message: expect.stringMatching(/events_id_unique/) } });
    expect(other.status).toBe('fulfilled');
    expect((await store.readStream('message-msg_1')).map((e) => e.type)).toEqual(['MessageAccepted']);
  });

  it('maps a revision taken behind its back (UNIQUE (stream, revision)) to WrongExpectedRevisionError', async () => {
    const store = open({ schema: 'defence' });
    const stream = `usage-${randomUUID()}`;
    await store.append(stream, [{ type: 'Reserved', data: { by: 'store' } }], { expectedRevision: 'no_stream' });
    // A writer that skips the append lock: its revision 1 is inserted but not committed yet.
    await onDatabase(database.url(), async (rogue) => {
      await rogue.query('BEGIN');
      await rogue.query(
        `INSERT INTO defence.events (position, id, stream, category, revision, type, data, metadata)
         VALUES (nextval('defence.event_positions'), $1, $2, 'usage', 1, 'Reserved', '{"by":"rogue"}', '{}')`,
        [randomUUID(), stream],
      );
      // Its outcome is taken at once: the refusal may come before the rogue's COMMIT is answered,
      // and a rejection nobody handled yet fails the run.
      const outcome = store.append(stream, [{ type: 'Reserved', data: { by: 'store' } }], { expectedRevision: 0n }).catch((error: unknown) => error);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await rogue.query('COMMIT');
      const refusal = await outcome;
      expect(refusal).toBeInstanceOf(WrongExpectedRevisionError);
      expect(refusal).toMatchObject({ expected: 0n, actual: 1n });
    });
    expect((await store.readStream(stream)).map((e) => e.data)).toEqual([{ by: 'store' }, { by: 'rogue' }]);
  });

  it('reads a category page by page along its index, even before the table was ever analyzed', async () => {
    const writer = open({ schema: 'paging' });
    const batch = Array.from({ length: 100 }, (_, n) => ({ type: 'Counted', data: { n } }));
    for (let s = 0; s < 100; s += 1) await writer.append(`tally-${s}`, batch, { expectedRevision: 'no_stream' });
    await writer.close();
    // Another store reads them: the writer itself would hand its last appends over from memory.
    const store = open({ schema: 'paging' });
    let received = 0;
    for await (const page of store.subscribe({ category: 'tally', from: 'start' })) if ((received += page.length) >= 10_000) break;
    await store.close();

    // Counted by the server once the store's backends ended. Along the index a catch-up reads each
    // event once; a bitmap scan + sort per 2,000-event page would read about 10,000^2 / 4,000 = 25,000.
    const indexReads = await onDatabase(database.url(), async (client) => (await client.query<{ read: number }>(
      "SELECT sum(idx_tup_read)::int AS read FROM pg_stat_user_indexes WHERE schemaname = 'paging' AND indexrelname <> 'events_id_unique'",
    )).rows[0]!.read);
    expect(received).toBe(10_000);
    expect(indexReads).toBeGreaterThanOrEqual(10_000);
    expect(indexReads).toBeLessThan(15_000);
  });

  it('reads a category that is a tenth of the analyzed log along the category index, not the whole log', async () => {
    const store = open({ schema: 'sparse' });
    const batch = (type: string) => Array.from({ length: 100 }, (_, n) => ({ type, data: { n } }));
    // More than a page of the category, so that a page ends inside the log.
    const rare = 25;
    for (let s = 0; s < rare * 10; s += 1) {
      await store.append(`bulk-${s}`, batch('Bulk'), { expectedRevision: 'no_stream' });
      if (s % 10 === 0) await store.append(`rare-${s}`, batch('Rare'), { expectedRevision: 'no_stream' });
    }
    await onDatabase(database.url(), (client) => client.query('ANALYZE sparse.events'));
    let received = 0;
    for await (const page of store.subscribe({ category: 'rare', from: 'start' })) if ((received += page.length) >= rare * 100) break;
    await store.close();

    // Along the primary key, each page of the category reads the nine times as many other events beside it.
    const tuplesRead = await onDatabase(database.url(), async (client) => (await client.query<{ read: number }>(
      "SELECT sum(idx_tup_read)::int AS read FROM pg_stat_user_indexes WHERE schemaname = 'sparse' AND indexrelname <> 'events_id_unique'",
    )).rows[0]!.read);
    expect(received).toBe(rare * 100);
    expect(tuplesRead).toBeLessThan(rare * 100 * 2);
  });

  it('round-trips data and metadata exactly: any JSON value, key order, escapes', async () => {
    const store = open();
    const data = [3, 'text', null, [1, { x: true }], { zebra: 1, apple: { b: 2, a: 1 } }, 'nul \u0000 and 😀'];
    await store.append('quota-acc_1', data.map((d, i) => ({ type: `T${i}`, data: d, metadata: { z: i, a: 'x' } })), { expectedRevision: 'any' });
    const read = await store.readStream('quota-acc_1');
    expect(read.map((e) => e.data)).toEqual(data);
    expect(Object.keys(read[4]!.data as object)).toEqual(['zebra', 'apple']);
    expect(Object.keys(read[0]!.metadata)).toEqual(['z', 'a', 'prevHash', 'hash']);
    expect(read[0]!.id).toMatch(/^[0-9a-f-]{36}$/);
    await store.append('quota-acc_2', [{ type: 'Bare', data: undefined }], { expectedRevision: 'no_stream' });
    expect(await store.readStream('quota-acc_2')).toMatchObject([{ data: null, metadata: {} }]);
  });

  it('rejects an empty append and a schema name it would have to quote', async () => {
    await expect(open().append('message-msg_1', [], { expectedRevision: 'any' })).rejects.toBeInstanceOf(TypeError);
    expect(() => new PostgresEventStore(database.url(), { schema: 'Sessions; DROP' })).toThrow(/schema must match/);
  });
});
