import { afterAll, beforeAll, expect, it } from 'vitest';
import { WrongExpectedRevisionError, type EventStore } from '../../src/index.js';
import { dataOf, events, freshCategory, freshStream, type ContractTarget } from './helpers.js';

export function appendAndReadContract(target: () => ContractTarget): void {
  let store: EventStore;
  beforeAll(async () => {
    store = await target().connect();
  });
  afterAll(async () => store?.close());

  it('reads back appended events with their revisions, ids, data and metadata', async () => {
    const stream = freshStream('session');
    const id = crypto.randomUUID();
    const first = await store.append(stream, [{ type: 'SessionCreated', data: { name: 'Shop' }, metadata: { accountId: 'acc_1' }, id }], { expectedRevision: 'no_stream' });
    const second = await store.append(stream, events(2), { expectedRevision: first.nextRevision });

    const read = await store.readStream(stream);
    expect(first.nextRevision).toBe(0n);
    expect(second.nextRevision).toBe(2n);
    expect(second.position).toBeGreaterThan(first.position);
    expect(read.map((e) => [e.stream, e.type, e.revision])).toEqual([
      [stream, 'SessionCreated', 0n], [stream, 'ThingHappened', 1n], [stream, 'ThingHappened', 2n],
    ]);
    expect(read[0]).toMatchObject({ id, data: { name: 'Shop' }, metadata: { accountId: 'acc_1' }, position: first.position });
    expect(read[2]?.position).toBe(second.position);
    expect(read[0]?.recordedAt).toBeInstanceOf(Date);
    expect(Math.abs(Date.now() - (read[0]?.recordedAt.getTime() ?? 0))).toBeLessThan(60_000);
  });

  it('reads a missing stream as empty, and honours fromRevision and maxCount', async () => {
    const stream = freshStream();
    expect(await store.readStream(stream)).toEqual([]);
    await store.append(stream, events(5), { expectedRevision: 'no_stream' });
    expect(dataOf(await store.readStream(stream, { fromRevision: 2n, maxCount: 2 }))).toEqual([{ n: 2 }, { n: 3 }]);
    expect(await store.readStream(stream, { fromRevision: 5n })).toEqual([]);
  });

  it('rejects an append at a stale revision with the actual revision, and writes nothing', async () => {
    const stream = freshStream();
    await store.append(stream, events(3), { expectedRevision: 'no_stream' });
    const stale = store.append(stream, events(1, 'Late'), { expectedRevision: 1n });

    await expect(stale).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await expect(stale).rejects.toMatchObject({ stream, expected: 1n, actual: 2n });
    expect(await store.readStream(stream)).toHaveLength(3);
  });

  it('checks no_stream, stream_exists and any', async () => {
    const stream = freshStream();
    await expect(store.append(stream, events(1), { expectedRevision: 'stream_exists' }))
      .rejects.toMatchObject({ name: 'WrongExpectedRevisionError', expected: 'stream_exists', actual: 'no_stream' });
    await expect(store.append(stream, events(1), { expectedRevision: 5n }))
      .rejects.toMatchObject({ expected: 5n, actual: 'no_stream' });
    await store.append(stream, events(1), { expectedRevision: 'no_stream' });
    await expect(store.append(stream, events(1), { expectedRevision: 'no_stream' }))
      .rejects.toMatchObject({ expected: 'no_stream', actual: 0n });
    expect((await store.append(stream, events(1), { expectedRevision: 'stream_exists' })).nextRevision).toBe(1n);
    expect((await store.append(stream, events(1), { expectedRevision: 'any' })).nextRevision).toBe(2n);
  });

  it('orders readAll by position across streams and filters by category', async () => {
    const category = freshCategory();
    // `other` shares the category's name as a prefix (`cabc` vs `cabcx`) and must not match.
    const [a, b, other] = [freshStream(category), freshStream(category), freshStream(`${category}x`)];
    const first = await store.append(a, events(1, 'A', 0), { expectedRevision: 'no_stream' });
    await store.append(other, events(1, 'Other', 1), { expectedRevision: 'no_stream' });
    await store.append(b, events(2, 'B', 2), { expectedRevision: 'no_stream' });
    await store.append(a, events(1, 'A', 4), { expectedRevision: 0n });

    const inCategory = await store.readAll({ category });
    expect(inCategory.map((e) => [e.stream, e.data])).toEqual([
      [a, { n: 0 }], [b, { n: 2 }], [b, { n: 3 }], [a, { n: 4 }],
    ]);
    const positions = inCategory.map((e) => e.position);
    expect([...positions].sort((x, y) => (x < y ? -1 : 1))).toEqual(positions);
    expect(dataOf(await store.readAll({ category, maxCount: 2 }))).toEqual([{ n: 0 }, { n: 2 }]);
    expect(dataOf(await store.readAll({ category, fromPosition: inCategory[2]?.position ?? 0n }))).toEqual([{ n: 3 }, { n: 4 }]);

    const everything = (await store.readAll({ fromPosition: first.position })).filter((e) => [a, b, other].includes(e.stream));
    expect(dataOf(everything)).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })));
  });
}
