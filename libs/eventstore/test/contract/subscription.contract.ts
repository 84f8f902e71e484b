import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventStore } from '../../src/index.js';
import { dataOf, events, freshCategory, freshStream, iteratorOf, nextEvents, withTimeout, type ContractTarget } from './helpers.js';

export function subscriptionContract(target: () => ContractTarget): void {
  let store: EventStore;
  let otherConnection: EventStore;
  beforeAll(async () => {
    [store, otherConnection] = await Promise.all([target().connect(), target().connect()]);
  });
  afterAll(async () => {
    await Promise.all([store?.close(), otherConnection?.close()]);
  });

  it('catches up on stored events of a category, then delivers new appends live', async () => {
    const category = freshCategory();
    const stream = freshStream(category);
    await store.append(stream, events(3), { expectedRevision: 'no_stream' });
    await store.append(freshStream(), events(1, 'Unrelated', 99), { expectedRevision: 'no_stream' });

    const subscription = store.subscribe({ category, from: 'start' });
    const iterator = iteratorOf(subscription);
    expect(dataOf(await nextEvents(iterator, 3))).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);

    await store.append(stream, events(1, 'ThingHappened', 3), { expectedRevision: 2n });
    await otherConnection.append(freshStream(category), events(1, 'ThingHappened', 4), { expectedRevision: 'no_stream' });
    const live = await nextEvents(iterator, 2);
    expect(dataOf(live)).toEqual([{ n: 3 }, { n: 4 }]);
    expect(live[1]?.position).toBeGreaterThan(live[0]?.position ?? 0n);
    await subscription.close();
  });

  it('resumes after a checkpoint without redelivering what was processed', async () => {
    const category = freshCategory();
    const stream = freshStream(category);
    await store.append(stream, events(4), { expectedRevision: 'no_stream' });
    const first = store.subscribe({ category, from: 'start' });
    const processed = await nextEvents(iteratorOf(first), 2);
    await first.close();
    const checkpoint = processed[1]?.position ?? 0n;

    const resumed = store.subscribe({ category, from: checkpoint });
    const iterator = iteratorOf(resumed);
    expect(dataOf(await nextEvents(iterator, 2))).toEqual([{ n: 2 }, { n: 3 }]);
    await store.append(stream, events(1, 'ThingHappened', 4), { expectedRevision: 3n });
    expect(dataOf(await nextEvents(iterator, 1))).toEqual([{ n: 4 }]);
    await resumed.close();
  });

  it('ends a pending iteration when closed, and on abort', async () => {
    const category = freshCategory();
    const subscription = store.subscribe({ category, from: 'start' });
    const pending = iteratorOf(subscription).next();
    await subscription.close();
    expect(await withTimeout(pending, 5_000, 'close did not end the iteration')).toEqual({ done: true, value: undefined });

    const abort = new AbortController();
    const received: unknown[] = [];
    const consumed = (async () => {
      for await (const batch of store.subscribe({ category, from: 'start', signal: abort.signal })) received.push(...batch.map((event) => event.data));
    })();
    await store.append(freshStream(category), events(1), { expectedRevision: 'no_stream' });
    await expect.poll(() => received.length, { timeout: 5_000 }).toBe(1);
    abort.abort();
    await withTimeout(consumed, 5_000, 'abort did not end the for-await loop');
    expect(received).toEqual([{ n: 0 }]);
  });

  it('stops delivering after a for-await loop breaks', async () => {
    const category = freshCategory();
    const stream = freshStream(category);
    await store.append(stream, events(3), { expectedRevision: 'no_stream' });
    const subscription = store.subscribe({ category, from: 'start' });
    for await (const batch of subscription) {
      if (batch.some((event) => event.revision === 1n)) break;
    }
    const after = await subscription[Symbol.asyncIterator]().next();
    expect(after.done).toBe(true);
  });
}
