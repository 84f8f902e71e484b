import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accountStream, usageStream } from '@switchboard/contracts';
import { PostgresEventStore, SqliteEventStore } from '@switchboard/eventstore';
import { createTestDatabase, postgresSkipReason } from '@switchboard/eventstore/testing';
import type { EventStore, ReadStreamOptions } from '@switchboard/eventstore';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { QuotaCommands } from './quota-core.js';

const dirs: string[] = [];
const stores: EventStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A SQLite store that records which streams were read. */
function countingStore(): { store: EventStore; reads: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'sb-quota-core-'));
  dirs.push(dir);
  return counting(new SqliteEventStore(join(dir, 'events.sqlite')));
}

/** `store`, recording which streams it was asked to read. */
function counting(store: EventStore): { store: EventStore; reads: string[] } {
  stores.push(store);
  const reads: string[] = [];
  const readStream = store.readStream.bind(store);
  store.readStream = (stream: string, options?: ReadStreamOptions) => {
    reads.push(stream);
    return readStream(stream, options);
  };
  return { store, reads };
}

const noWait = { accounts: async () => undefined };
const msg = (n: number) => `msg_01JD8Z7A1B2C3D4E5F6G${String(n).padStart(6, '0')}`;

describe('daily usage in memory', () => {
  it("keeps one day per account: a reservation on a new day lets the day before go, which a late refund reads again", async () => {
    const { store, reads } = countingStore();
    let now = new Date('2026-11-21T23:59:00.000Z');
    const quota = new QuotaCommands(store, { now: () => now }, noWait);
    const { accountId } = await quota.openAccount({ plan: 'basic' });
    await quota.reserveDaily(accountId, msg(1));
    await quota.reserveDaily(accountId, msg(2));
    const yesterday = usageStream(accountId, '2026-11-21');
    const readsOfYesterday = () => reads.filter((stream) => stream === yesterday).length;
    // The first reservation of the day read its (empty) stream; then the state is in memory.
    expect(readsOfYesterday()).toBe(1);

    // Still the same day: a refund decides on the state in memory, without a read.
    expect((await quota.refundDaily(accountId, msg(2), '2026-11-21')).refunded).toBe(true);
    expect(readsOfYesterday()).toBe(1);

    now = new Date('2026-11-22T00:00:01.000Z');
    expect(await quota.reserveDaily(accountId, msg(3))).toMatchObject({ day: '2026-11-22', used: 1 });
    // The new day's first reservation let the previous day go: its late refund reads it again,
    // and still counts right (refunded once, the other unit stays used).
    expect((await quota.refundDaily(accountId, msg(1), '2026-11-21')).refunded).toBe(true);
    expect(readsOfYesterday()).toBe(2);
    expect((await quota.refundDaily(accountId, msg(1), '2026-11-21')).refunded).toBe(false);
  });

  it('holds a busy day\'s recent message ids only, and still counts each id once: an older one is looked up in its stream', async () => {
    const { store, reads } = countingStore();
    const now = new Date('2026-11-21T12:00:00.000Z');
    const quota = new QuotaCommands(store, { now: () => now }, noWait, { unitsKept: 2 });
    const { accountId } = await quota.openAccount({ plan: 'basic' });
    const today = usageStream(accountId, '2026-11-21');
    const readsOfToday = () => reads.filter((stream) => stream === today).length;
    const minted = (n: number) => `msg_${ulid(now.getTime() + n * 1_000)}`;
    const ids = [1, 2, 3, 4, 5, 6].map(minted);
    for (const id of ids) await quota.reserveDaily(accountId, id);
    const afterReservations = readsOfToday();

    // A new message is counted on the state in memory, without a read.
    expect(await quota.reserveDaily(accountId, minted(7))).toMatchObject({ used: 7 });
    expect(readsOfToday()).toBe(afterReservations);
    // The first message was let go: its retried reservation reads the stream, and takes nothing.
    expect(await quota.reserveDaily(accountId, ids[0]!)).toMatchObject({ used: 7 });
    expect(readsOfToday()).toBeGreaterThan(afterReservations);
    // Its refund returns the unit once.
    expect((await quota.refundDaily(accountId, ids[1]!, '2026-11-21')).refunded).toBe(true);
    expect((await quota.refundDaily(accountId, ids[1]!, '2026-11-21')).refunded).toBe(false);
    expect(await quota.reserveDaily(accountId, ids[1]!)).toMatchObject({ used: 6 });

    // After a restart the fold of the whole day lets go the same way, and counts the same.
    const restarted = new QuotaCommands(store, { now: () => now }, noWait, { unitsKept: 2 });
    expect(await restarted.reserveDaily(accountId, ids[2]!)).toMatchObject({ used: 6 });
    expect((await restarted.refundDaily(accountId, ids[0]!, '2026-11-21')).refunded).toBe(true);
    expect(await restarted.reserveDaily(accountId, minted(8))).toMatchObject({ used: 6 });
  });
});

const postgresSkip = await postgresSkipReason();
const database = postgresSkip ? undefined : await createTestDatabase('sb_quota_core');
afterAll(async () => database?.drop());

/** Two stores on one log, as two quota processes have: a SQLite file, or a PostgreSQL schema. */
const twoStores: [name: string, skip: string | undefined, open: () => [EventStore, EventStore]][] = [
  ['SQLite', undefined, () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-quota-core-'));
    dirs.push(dir);
    return [new SqliteEventStore(join(dir, 'events.sqlite')), new SqliteEventStore(join(dir, 'events.sqlite'))];
  }],
  [postgresSkip ? `PostgreSQL (skipped: ${postgresSkip})` : 'PostgreSQL', postgresSkip, () => {
    const schema = `quota_${ulid().toLowerCase()}`;
    return [new PostgresEventStore(database!.url, { schema }), new PostgresEventStore(database!.url, { schema })];
  }],
];

describe.each(twoStores)('the plan a reservation is decided under (%s)', (_name, skip, open) => {
  it.skipIf(skip !== undefined)("reads the account stream only after another process changed it, and applies that change to the next reservation", async () => {
    const [here, there] = open();
    const { store, reads } = counting(here);
    stores.push(there);
    const now = new Date('2026-11-21T12:00:00.000Z');
    const quota = new QuotaCommands(store, { now: () => now }, noWait);
    const other = new QuotaCommands(there, { now: () => now }, noWait);
    const { accountId } = await quota.openAccount({ plan: 'free' });
    // Opening it read its (empty) stream once.
    const readsOfAccount = () => reads.filter((stream) => stream === accountStream(accountId)).length - 1;
    for (let n = 1; n <= 3; n++) await quota.reserveDaily(accountId, msg(n));
    // The account this process opened is decided on as folded here, on every store.
    expect(readsOfAccount()).toBe(0);

    // A plan raised elsewhere: the append's condition finds the account moved, which is read again.
    await other.execute(accountId, (at) => ({ type: 'UpdateAccount', plan: 'basic', now: at }));
    expect(await quota.reserveDaily(accountId, msg(4))).toMatchObject({ limit: 1000, used: 4 });
    expect(readsOfAccount()).toBe(1);
    for (let n = 5; n <= 60; n++) await quota.reserveDaily(accountId, msg(n));
    expect(readsOfAccount()).toBe(1);

    // Lowered elsewhere: the limit of the plan as it is now refuses, though the one folded here would not.
    await other.execute(accountId, (at) => ({ type: 'UpdateAccount', plan: 'free', now: at }));
    await expect(quota.reserveDaily(accountId, msg(61))).rejects.toMatchObject({ code: 'DAILY_MESSAGE_LIMIT_REACHED', details: { limit: 50, used: 60 } });
    // Raised again: the refusal decided on the plan folded here is decided again on the account as read now.
    await other.execute(accountId, (at) => ({ type: 'UpdateAccount', plan: 'premium', now: at }));
    expect(await quota.reserveDaily(accountId, msg(61))).toMatchObject({ limit: 10_000, used: 61 });

    // Closed elsewhere: refused.
    await other.execute(accountId, (at) => ({ type: 'CloseAccount', now: at }));
    await expect(quota.reserveDaily(accountId, msg(62))).rejects.toMatchObject({ code: 'FORBIDDEN' });
    expect(await other.reserveDaily(accountId, msg(62)).catch((error: { code?: string }) => error.code)).toBe('FORBIDDEN');
  });

  it.skipIf(skip !== undefined)('reserves on an account another process opened after this one found it missing', async () => {
    const [here, there] = open();
    stores.push(here, there);
    const now = new Date('2026-11-21T12:00:00.000Z');
    const quota = new QuotaCommands(here, { now: () => now }, noWait);
    const other = new QuotaCommands(there, { now: () => now }, noWait);
    const accountId = `acc_${ulid()}` as const;
    // Asked for before it exists (a fixed id, a refused command): not kept as never opened here.
    await expect(quota.accountSummary(accountId)).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
    await expect(quota.reserveDaily(accountId, msg(1))).rejects.toMatchObject({ code: 'ACCOUNT_NOT_FOUND' });
    await other.openAccount({ plan: 'free' }, {}, accountId);
    expect(await quota.reserveDaily(accountId, msg(1))).toMatchObject({ limit: 50, used: 1 });
  });
});

describe('a reservation re-reading its account beside a slot command', () => {
  it('counts the slots right: the re-read after a refusal waits for the slot command queued before it', async () => {
    const { store } = countingStore();
    const now = new Date('2026-11-21T12:00:00.000Z');
    const quota = new QuotaCommands(store, { now: () => now }, noWait);
    const { accountId } = await quota.openAccount({ plan: 'free' });
    for (let n = 1; n <= 50; n++) await quota.reserveDaily(accountId, msg(n));
    // The slot's append reaches the store late, and a read of the account stream waits for it: a
    // fold beside the queue would then fold the slot onto the state the slot command already changed.
    const append = store.append.bind(store);
    const readStream = store.readStream.bind(store);
    let slotAppended: Promise<unknown> = Promise.resolve();
    store.append = (stream, events, options) => {
      if (stream !== accountStream(accountId)) return append(stream, events, options);
      const appended = new Promise((resolve) => setTimeout(resolve, 20)).then(() => append(stream, events, options));
      slotAppended = appended.catch(() => undefined);
      return appended;
    };
    store.readStream = async (stream, options) => {
      if (stream === accountStream(accountId)) await slotAppended;
      return readStream(stream, options);
    };
    const [slot, unit] = await Promise.allSettled([
      quota.reserveSession({ accountId, sessionId: 'ses_01JD8Z7A1B2C3D4E5F6G000001' }),
      quota.reserveDaily(accountId, msg(51)),
    ]);
    expect(slot).toMatchObject({ status: 'fulfilled', value: { limit: 1, used: 1 } });
    expect(unit).toMatchObject({ status: 'rejected', reason: { code: 'DAILY_MESSAGE_LIMIT_REACHED' } });
    // The free plan holds one session: a second is refused.
    await expect(quota.reserveSession({ accountId, sessionId: 'ses_01JD8Z7A1B2C3D4E5F6G000002' })).rejects.toMatchObject({ code: 'SESSION_LIMIT_REACHED' });
  });
});

describe('a reservation on an account another replica keeps changing', () => {
  it('gives up with a retryable SERVICE_UNAVAILABLE after ten tries, having reserved nothing', async () => {
    const { store } = countingStore();
    const now = new Date('2026-11-21T12:00:00.000Z');
    const quota = new QuotaCommands(store, { now: () => now }, noWait);
    const other = new QuotaCommands(store, { now: () => now }, noWait);
    const { accountId } = await quota.openAccount({ plan: 'enterprise' });
    // The other replica moves the account stream (a session slot taken) right after every read of
    // it here: each reservation is decided on an account that has moved by its append.
    let sessions = 0;
    const moveAccount = () => other.reserveSession({ accountId, sessionId: `ses_01JD8Z7A1B2C3D4E5F6G${String(++sessions).padStart(6, '0')}` });
    await moveAccount();
    const readStream = store.readStream.bind(store);
    let accountReads = 0;
    let moving = false;
    store.readStream = async (stream, options) => {
      const read = await readStream(stream, options);
      // The other replica's own reads (it shares the store object here) move nothing.
      if (stream === accountStream(accountId) && !moving) {
        accountReads += 1;
        moving = true;
        await moveAccount().finally(() => (moving = false));
      }
      return read;
    };
    await expect(quota.reserveDaily(accountId, msg(1))).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(accountReads).toBeGreaterThanOrEqual(9);
    store.readStream = readStream;
    // Nothing was counted: the account, once quiet, gets its first unit of the day.
    expect(await quota.reserveDaily(accountId, msg(2))).toMatchObject({ used: 1 });
  });
});
