import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { processMetrics } from '@switchboard/telemetry';
import { DatabaseSync } from 'node:sqlite';
import { GENESIS_HASH, SqliteEventStore, WrongExpectedRevisionError, verifyStream } from '../src/index.js';
import type { RecordedEvent } from '../src/index.js';

let directory: string;
let store: SqliteEventStore;
beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-eventstore-sqlite-'));
  store = new SqliteEventStore(path.join(directory, 'events.sqlite'));
});
afterEach(async () => {
  await store.close();
  fs.rmSync(directory, { recursive: true, force: true });
});

describe('SqliteEventStore', () => {
  it('writes nothing of an append whose second event fails', async () => {
    const id = crypto.randomUUID();
    await store.append('message-msg_1', [{ type: 'MessageAccepted', data: {}, id }], { expectedRevision: 'no_stream' });
    const reusedId = store.append('message-msg_1', [
      { type: 'MessageSent', data: {} },
      { type: 'MessageDelivered', data: {}, id },
    ], { expectedRevision: 0n });

    await expect(reusedId).rejects.toThrow(/UNIQUE constraint failed: events.id/);
    expect((await store.readStream('message-msg_1')).map((e) => e.type)).toEqual(['MessageAccepted']);
    const next = await store.append('message-msg_1', [{ type: 'MessageSent', data: {} }], { expectedRevision: 0n });
    expect(next.nextRevision).toBe(1n);
  });

  it('commits the appends of one event-loop turn in one transaction, each still decided alone', async () => {
    const transactions = async () => (await processMetrics().sqliteTransactions.get()).values.find((v) => v.labels.database === `${path.basename(directory)}/events.sqlite`)?.value ?? 0;
    const before = await transactions();
    const appended = await Promise.allSettled([
      ...Array.from({ length: 20 }, (_, i) => store.append(`message-msg_${i}`, [{ type: 'MessageAccepted', data: { i } }], { expectedRevision: 'no_stream' })),
      store.append('message-msg_0', [{ type: 'MessageAccepted', data: { i: 'again' } }], { expectedRevision: 'no_stream' }),
    ]);
    expect(appended.filter((a) => a.status === 'fulfilled')).toHaveLength(20);
    expect(await transactions()).toBe(before + 1);
    // Each append resolved with its own place in the log.
    const positions = appended.flatMap((a) => (a.status === 'fulfilled' ? [a.value.position] : []));
    expect(new Set(positions).size).toBe(20);
    expect((await store.readStream('message-msg_0')).map((e) => e.data)).toEqual([{ i: 0 }]);
  });

  it('gives an event appended without an id a time-ordered UUID (version 7): later appends sort after', async () => {
    // Many ids within one millisecond: they still sort in append order (the counter, not chance).
    const many = Array.from({ length: 300 }, (_, i) => ({ type: 'A', data: { i } }));
    await store.append('message-msg_1', many, { expectedRevision: 'no_stream' });
    await new Promise((resolve) => setTimeout(resolve, 2));
    await store.append('message-msg_1', [{ type: 'D', data: {} }], { expectedRevision: 299n });
    const ids = (await store.readStream('message-msg_1')).map((e) => e.id);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(301);
    expect([...ids].sort()).toEqual(ids);
    // The first 48 bits are the time of the append, in milliseconds.
    expect(Math.abs(Number.parseInt(ids[0]!.replaceAll('-', '').slice(0, 12), 16) - Date.now())).toBeLessThan(60_000);
  });

  it('rejects an empty append instead of silently doing nothing', async () => {
    await expect(store.append('message-msg_1', [], { expectedRevision: 'any' })).rejects.toBeInstanceOf(TypeError);
  });

  it('round-trips any JSON value as data', async () => {
    await store.append('quota-acc_1', [
      { type: 'A', data: 3 }, { type: 'B', data: 'text' }, { type: 'C', data: null }, { type: 'D', data: [1, { x: true }] },
    ], { expectedRevision: 'any' });
    expect((await store.readStream('quota-acc_1')).map((e) => e.data)).toEqual([3, 'text', null, [1, { x: true }]]);
  });

  it('ends live subscriptions when the store closes', async () => {
    const pending = store.subscribe({ from: 'start' })[Symbol.asyncIterator]().next();
    await store.close();
    expect(await pending).toEqual({ done: true, value: undefined });
  });

  it('continues a stream written before chains with a chain from genesis, checked from there', async () => {
    // Two events as a version without chains wrote them.
    const older = new DatabaseSync(path.join(directory, 'events.sqlite'));
    const insert = older.prepare("INSERT INTO events (id, stream, category, revision, type, data, metadata, recorded_at) VALUES (?, 'session-s1', 'session', ?, 'Old', '{}', '{\"accountId\":\"acc_1\"}', 0)");
    for (const revision of [0, 1]) insert.run(crypto.randomUUID(), revision);
    older.close();

    await store.append('session-s1', [{ type: 'New', data: { n: 1 } }, { type: 'New', data: { n: 2 } }], { expectedRevision: 1n });
    const stored = await store.readStream('session-s1');
    expect(stored.map((e) => e.metadata['prevHash'])).toEqual([undefined, undefined, GENESIS_HASH, stored[2]!.metadata['hash']]);
    expect(verifyStream(stored)).toMatchObject({ findings: [], summary: { events: 4, unchainedEvents: 2, chainedFrom: 2n } });
  });

  it('reports the conflict of a stale writer in a second process-like connection', async () => {
    const second = new SqliteEventStore(path.join(directory, 'events.sqlite'));
    await store.append('account-acc_1', [{ type: 'AccountOpened', data: {} }], { expectedRevision: 'no_stream' });
    const stale = second.append('account-acc_1', [{ type: 'AccountOpened', data: {} }], { expectedRevision: 'no_stream' });
    await expect(stale).rejects.toEqual(new WrongExpectedRevisionError('account-acc_1', 'no_stream', 0n));
    await second.close();
  });

  it("hands a live subscription this process's appends as a read returns them, and another connection's between them in order", async () => {
    const live = store.subscribe({ category: 'message', from: 'start' })[Symbol.asyncIterator]();
    const received: RecordedEvent[] = [];
    const receive = async (count: number) => {
      while (received.length < count) received.push(...(await live.next()).value!);
    };
    await store.append('message-m1', [{ type: 'Accepted', data: { to: '+15550001', at: new Date(5), skip: undefined } }], { expectedRevision: 'no_stream' });
    await receive(1);
    await store.append('usage-u1', [{ type: 'Reserved', data: {} }], { expectedRevision: 'no_stream' });
    await store.append('message-m1', [{ type: 'Sent', data: { n: 2 } }, { type: 'Delivered', data: { n: 3 } }], { expectedRevision: 0n });
    await receive(3);
    // Another connection (another process, the CLI) commits between this process's appends.
    const other = new DatabaseSync(path.join(directory, 'events.sqlite'));
    other.prepare("INSERT INTO events (id, stream, category, revision, type, data, metadata, recorded_at) VALUES ('x1', 'message-m2', 'message', 0, 'Accepted', '{}', '{}', 7)").run();
    other.close();
    await store.append('message-m1', [{ type: 'Read', data: { n: 4 } }], { expectedRevision: 2n });
    await receive(5);
    expect(received).toEqual(await store.readAll({ category: 'message' }));
    expect(received.map((e) => `${e.stream}:${e.type}`)).toEqual(['message-m1:Accepted', 'message-m1:Sent', 'message-m1:Delivered', 'message-m2:Accepted', 'message-m1:Read']);
    await live.return?.(undefined);
  });
});
