import { describe, expect, it } from 'vitest';
import { AppendNotifier } from '../src/append-notifier.js';

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
});
