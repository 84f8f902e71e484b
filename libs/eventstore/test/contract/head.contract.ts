import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventStore } from '../../src/index.js';
import { events, freshCategory, freshStream, type ContractTarget } from './helpers.js';

/**
 * The head a catch-up must reach and how far a reader lags, each answered with one query; and
 * whether anything was appended since a read, answered without one (a write mark).
 */
export function headContract(target: () => ContractTarget): void {
  let store: EventStore;
  beforeAll(async () => {
    store = await target().connect();
  });
  afterAll(async () => store?.close());

  it('finds the last position of a category, not of a category sharing its prefix, and of the log', async () => {
    const category = freshCategory();
    expect(await store.lastPosition({ category })).toBeUndefined();
    const first = await store.append(freshStream(category), events(2), { expectedRevision: 'no_stream' });
    const prefixed = await store.append(freshStream(`${category}x`), events(1), { expectedRevision: 'no_stream' });
    expect(await store.lastPosition({ category })).toBe(first.position);
    expect(await store.lastPosition({ category: `${category}x` })).toBe(prefixed.position);

    const last = await store.append(freshStream(category), events(1), { expectedRevision: 'no_stream' });
    expect(await store.lastPosition({ category })).toBe(last.position);
    // Other tests (or runs, on a shared server) may append to the log meanwhile: the head is at least ours, and an event.
    const head = await store.lastPosition();
    expect(head).toBeGreaterThanOrEqual(last.position);
    expect((await store.readAll({ fromPosition: head!, maxCount: 1 }))[0]?.position).toBe(head);
  });

  it('counts the events after a position, in a category or the log, up to a limit', async () => {
    const category = freshCategory();
    expect(await store.countAfter('start', { category, limit: 10 })).toBe(0);
    const first = await store.append(freshStream(category), events(3), { expectedRevision: 'no_stream' });
    await store.append(freshStream(`${category}x`), events(2), { expectedRevision: 'no_stream' });
    const last = await store.append(freshStream(category), events(2), { expectedRevision: 'no_stream' });

    expect(await store.countAfter('start', { category, limit: 10 })).toBe(5);
    expect(await store.countAfter('start', { category, limit: 4 })).toBe(4);
    expect(await store.countAfter(first.position, { category, limit: 10 })).toBe(2);
    expect(await store.countAfter(last.position, { category, limit: 10 })).toBe(0);
    expect(await store.countAfter(first.position, { limit: 1_000 })).toBeGreaterThanOrEqual(4);
    expect(await store.countAfter(first.position, { limit: 3 })).toBe(3);
  });

  it('keeps a write mark, where it gives one, unchanged until its category is appended to, by this connection or another', async () => {
    const category = freshCategory();
    const mark = store.writeMark(category);
    // PostgreSQL and KurrentDB give none: every read of a stream then asks the store.
    if (mark === undefined) return;
    expect(mark.unchanged()).toBe(true);
    await store.append(freshStream(`${category}x`), events(1), { expectedRevision: 'no_stream' });
    expect(mark.unchanged()).toBe(true);
    await store.append(freshStream(category), events(1), { expectedRevision: 'no_stream' });
    expect(mark.unchanged()).toBe(false);

    const other = await target().connect();
    try {
      const next = store.writeMark(category)!;
      await other.append(freshStream(category), events(1), { expectedRevision: 'no_stream' });
      expect(next.unchanged()).toBe(false);
    } finally {
      await other.close();
    }
  });
}
