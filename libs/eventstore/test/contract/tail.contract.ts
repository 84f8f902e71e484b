import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventStore, RecordedEvent } from '../../src/index.js';
import { dataOf, events, freshCategory, freshStream, type ContractTarget } from './helpers.js';

const positionsOf = (page: readonly RecordedEvent[]) => page.map((event) => event.position);

/**
 * A reader's tail (`EventStore.tail`): whatever it hands over from memory, it answers what a read
 * of the log answers, with every connection's appends in position order.
 */
export function tailContract(target: () => ContractTarget): void {
  let store: EventStore;
  let other: EventStore;
  beforeAll(async () => {
    store = await target().connect();
    other = await target().connect();
  });
  afterAll(async () => Promise.all([store?.close(), other?.close()]));

  it("reads a category's events after a position as readAll does, this connection's and another's alike", async () => {
    const category = freshCategory();
    const tail = store.tail(category);
    const stream = freshStream(category);
    await store.append(stream, events(2), { expectedRevision: 'no_stream' });
    const first = await tail.readAfter(-1n, 100);
    expect(dataOf(first)).toEqual([{ n: 0 }, { n: 1 }]);

    await store.append(stream, events(1, 'ThingHappened', 2), { expectedRevision: 1n });
    await other.append(freshStream(category), events(1, 'ThingHappened', 3), { expectedRevision: 'no_stream' });
    await store.append(freshStream(`${category}x`), events(1), { expectedRevision: 'no_stream' });
    await store.append(stream, events(1, 'ThingHappened', 4), { expectedRevision: 2n });
    const next = await tail.readAfter(first.at(-1)!.position, 100);
    const read = await store.readAll({ category, fromPosition: first.at(-1)!.position + 1n });
    expect(dataOf(next)).toEqual([{ n: 2 }, { n: 3 }, { n: 4 }]);
    expect(positionsOf(next)).toEqual(positionsOf(read));
    expect(next.map((event) => [event.id, event.stream, event.revision, event.type, event.metadata]))
      .toEqual(read.map((event) => [event.id, event.stream, event.revision, event.type, event.metadata]));

    // Asked again from an earlier position, and cut by a limit.
    expect(dataOf(await tail.readAfter(first[0]!.position, 2))).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("holds another connection's append after this one's up to a head read just before", async () => {
    const category = freshCategory();
    const tail = store.tail(category);
    const mine = await store.append(freshStream(category), events(1), { expectedRevision: 'no_stream' });
    expect(positionsOf(await tail.readAfter(-1n, 100))).toEqual([mine.position]);
    await store.append(freshStream(category), events(1, 'ThingHappened', 1), { expectedRevision: 'no_stream' });
    await other.append(freshStream(category), events(1, 'ThingHappened', 2), { expectedRevision: 'no_stream' });
    const head = await store.lastPosition();
    expect(dataOf(await tail.readAfter(mine.position, 100, head))).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it("reads the whole log's tail, every category in position order", async () => {
    const category = freshCategory();
    const tail = store.tail();
    const start = (await store.lastPosition()) ?? -1n;
    await store.append(freshStream(category), events(1), { expectedRevision: 'no_stream' });
    await store.append(freshStream(`${category}x`), events(1, 'ThingHappened', 1), { expectedRevision: 'no_stream' });
    const page = (await tail.readAfter(start, 1_000)).filter((event) => event.stream.startsWith(category));
    expect(dataOf(page)).toEqual([{ n: 0 }, { n: 1 }]);
  });
}
