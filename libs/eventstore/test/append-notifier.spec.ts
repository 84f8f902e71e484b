import { describe, expect, it } from 'vitest';
import { AppendNotifier, notifierFor } from '../src/append-notifier.js';
import type { AppendedEvent } from '../src/append-notifier.js';

/** Whether `promise` has settled once pending callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('AppendNotifier', () => {
  const never = new AbortController().signal;

  it("wakes a category's waiters on its own appends and on appends of unknown category, not on another category's", async () => {
    const notifier = new AppendNotifier();
    const accounts = notifier.waitForAppend(notifier.version('account'), 60_000, never, 'account');
    const everything = notifier.waitForAppend(notifier.version(), 60_000, never);
    notifier.notify('usage');
    expect(await settled(accounts)).toBe(false);
    expect(await settled(everything)).toBe(true);
    notifier.notify('account');
    expect(await settled(accounts)).toBe(true);

    const again = notifier.waitForAppend(notifier.version('account'), 60_000, never, 'account');
    // Another writer's commit (the file system's report, a LISTEN): its category is not known.
    notifier.notify();
    expect(await settled(again)).toBe(true);
  });

  it("loses no wake-up: an append of the category between taking the version and waiting returns at once", async () => {
    const notifier = new AppendNotifier();
    const seen = notifier.version('account');
    notifier.notify('usage');
    expect(notifier.version('account')).toBe(seen);
    notifier.notify('account');
    expect(notifier.version('account')).not.toBe(seen);
    expect(await settled(notifier.waitForAppend(seen, 60_000, never, 'account'))).toBe(true);
    const seenAll = notifier.version('account');
    notifier.notify();
    expect(await settled(notifier.waitForAppend(seenAll, 60_000, never, 'account'))).toBe(true);
  });

  describe('the events this process appended', () => {
    const appended = (category: string, ...positions: number[]): AppendedEvent[] => positions.map((position) => ({
      stream: `${category}-1`, category, type: 'Happened', revision: BigInt(position), position: BigInt(position),
      data: '{}', metadata: '{}', recordedAtMs: 0, id: `e${position}`,
    }));
    const positions = (events: AppendedEvent[] | undefined) => events?.map((event) => Number(event.position));

    it('hands over the events after a position when its commits follow it without a gap, of one category or all', () => {
      const notifier = new AppendNotifier();
      notifier.notifyAppended(appended('account', 4, 5));
      notifier.notifyAppended(appended('usage', 6));
      notifier.notifyAppended(appended('account', 7));
      expect(notifier.ownHead()).toBe(7n);
      expect(positions(notifier.appendedAfter(3n))).toEqual([4, 5, 6, 7]);
      expect(positions(notifier.appendedAfter(4n, 'account'))).toEqual([5, 7]);
      expect(positions(notifier.appendedAfter(5n, 'account'))).toEqual([7]);
      expect(positions(notifier.appendedAfter(7n))).toEqual([]);
    });

    it('hands over nothing across a gap (another writer may have appended there) or before what it keeps', () => {
      const notifier = new AppendNotifier();
      notifier.notifyAppended(appended('account', 4));
      // Position 5 is another writer's.
      notifier.notifyAppended(appended('account', 6));
      expect(positions(notifier.appendedAfter(5n))).toEqual([6]);
      expect(notifier.appendedAfter(4n)).toBeUndefined();
      expect(notifier.appendedAfter(2n)).toBeUndefined();
    });

    it('forgets what it kept when positions go back (a log made anew), and has subscriptions read the store', () => {
      const notifier = new AppendNotifier();
      notifier.notifyAppended(appended('account', 9, 10));
      const foreign = notifier.foreignVersion('account');
      notifier.notifyAppended(appended('account', 3));
      expect(notifier.foreignVersion('account')).not.toBe(foreign);
      expect(notifier.ownHead()).toBe(3n);
      expect(positions(notifier.appendedAfter(2n))).toEqual([3]);
      expect(notifier.appendedAfter(8n)).toEqual([]);
    });

    it('keeps only the latest events: older ones are read from the store', () => {
      const notifier = new AppendNotifier();
      for (let position = 1; position <= 5_000; position += 1) notifier.notifyAppended(appended('usage', position));
      expect(notifier.appendedAfter(0n)).toBeUndefined();
      expect(positions(notifier.appendedAfter(4_997n))).toEqual([4_998, 4_999, 5_000]);
    });

    it("wakes its categories' waiters, and counts apart from another writer's appends", async () => {
      const notifier = new AppendNotifier();
      const accounts = notifier.waitForAppend(notifier.version('account'), 60_000, never, 'account');
      const foreign = notifier.foreignVersion('account');
      notifier.notifyAppended(appended('account', 1));
      expect(await settled(accounts)).toBe(true);
      expect(notifier.foreignVersion('account')).toBe(foreign);
      notifier.notify('usage');
      expect(notifier.foreignVersion('account')).toBe(foreign);
      expect(notifier.foreignVersion()).not.toBe(foreign);
      notifier.notify();
      expect(notifier.foreignVersion('account')).not.toBe(foreign);
    });
  });

  it("is shared by the stores open on one file, and forgotten with the last of them (a file made anew starts its positions over)", () => {
    const file = `/tmp/sb-notifier-${process.pid}-${Date.now()}.sqlite`;
    const first = notifierFor(file);
    const second = notifierFor(file);
    expect(second.notifier).toBe(first.notifier);
    first.notifier.notifyAppended([{ stream: 'usage-1', category: 'usage', type: 'Reserved', revision: 0n, position: 10n, data: '{}', metadata: '{}', recordedAtMs: 0, id: 'e10' }]);
    first.release();
    first.release();
    const third = notifierFor(file);
    expect(third.notifier).toBe(second.notifier);
    second.release();
    third.release();
    const later = notifierFor(file);
    expect(later.notifier).not.toBe(first.notifier);
    expect(later.notifier.ownHead()).toBeUndefined();
  });
});
