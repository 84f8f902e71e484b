import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../src/event-store.js';
import { PollingSubscription } from '../src/polling-subscription.js';
import { CountingLog } from './counting-log.js';

/** Pulls batches until `count` events came, or fails after a second. */
async function take(iterator: AsyncIterator<readonly RecordedEvent[]>, count: number): Promise<number[]> {
  const positions: number[] = [];
  while (positions.length < count) {
    const next = await Promise.race([iterator.next(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`stalled after ${positions.join(',')}`)), 1_000))]);
    if (next.done) break;
    positions.push(...next.value.map((event) => Number(event.position)));
  }
  return positions;
}

describe('PollingSubscription', () => {
  it("takes this process's appends from the notifier once it has read to the end, without reading them back", async () => {
    const log = new CountingLog();
    log.append('account');
    const subscription = new PollingSubscription(log.source('account'), 0n, () => undefined);
    const events = subscription[Symbol.asyncIterator]();
    expect(await take(events, 1)).toEqual([1]);
    expect(log.reads).toBe(1);
    log.append('usage');
    log.append('account');
    log.append('account');
    expect(await take(events, 2)).toEqual([3, 4]);
    expect(log.reads).toBe(1);
    await subscription.close();
  });

  it("reads the store again when another writer's event may lie between, and so misses none and keeps the order", async () => {
    const log = new CountingLog();
    const subscription = new PollingSubscription(log.source('account'), 0n, () => undefined);
    const events = subscription[Symbol.asyncIterator]();
    log.append('account');
    expect(await take(events, 1)).toEqual([1]);
    log.appendForeign('account');
    log.append('account');
    expect(await take(events, 2)).toEqual([2, 3]);
    expect(log.reads).toBe(2);
    // Another writer's announced append (the file system's report, LISTEN) is read too.
    log.appendForeign('account');
    log.notifier.notify('account');
    expect(await take(events, 1)).toEqual([4]);
    // That read reached the end: the next own append follows it and is handed over.
    log.append('account');
    expect(await take(events, 1)).toEqual([5]);
    expect(log.reads).toBe(3);
    await subscription.close();
  });

  it('gives each subscription events of its own, parsed from the stored JSON', async () => {
    const log = new CountingLog();
    const first = new PollingSubscription(log.source(), 0n, () => undefined);
    const second = new PollingSubscription(log.source(), 0n, () => undefined);
    const [a, b] = [first[Symbol.asyncIterator](), second[Symbol.asyncIterator]()];
    await Promise.all([take(a, 0), take(b, 0)]);
    log.append('account');
    const [fromA, fromB] = [(await a.next()).value![0]!, (await b.next()).value![0]!];
    expect(fromA).toEqual(fromB);
    expect(fromA.data).not.toBe(fromB.data);
    await Promise.all([first.close(), second.close()]);
  });
});
