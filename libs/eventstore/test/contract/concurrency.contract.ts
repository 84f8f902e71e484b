import { afterAll, beforeAll, expect, it } from 'vitest';
import { WrongExpectedRevisionError, type EventStore } from '../../src/index.js';
import { events, freshStream, type ContractTarget } from './helpers.js';

export function concurrencyContract(target: () => ContractTarget): void {
  let writerA: EventStore;
  let writerB: EventStore;
  beforeAll(async () => {
    [writerA, writerB] = await Promise.all([target().connect(), target().connect()]);
  });
  afterAll(async () => {
    await Promise.all([writerA?.close(), writerB?.close()]);
  });

  it('lets exactly one of two connections win each revision; the loser gets the typed error', async () => {
    const stream = freshStream('usage');
    await writerA.append(stream, events(1), { expectedRevision: 'no_stream' });
    for (let revision = 0n; revision < 20n; revision += 1n) {
      const outcomes = await Promise.allSettled([
        writerA.append(stream, [{ type: 'Reserved', data: { by: 'a' } }], { expectedRevision: revision }),
        writerB.append(stream, [{ type: 'Reserved', data: { by: 'b' } }], { expectedRevision: revision }),
      ]);
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o) => o.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(won[0]?.value.nextRevision).toBe(revision + 1n);
      expect(lost[0]?.reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(lost[0]?.reason).toMatchObject({ expected: revision, actual: revision + 1n });
    }
    const stored = await writerB.readStream(stream);
    expect(stored.map((e) => e.revision)).toEqual(Array.from({ length: 21 }, (_, i) => BigInt(i)));
  });

  it('decides each of many appends made at once on its own: one conflict fails only its append', async () => {
    const contended = freshStream('usage');
    const others = Array.from({ length: 5 }, () => freshStream('usage'));
    const outcomes = await Promise.allSettled([
      writerA.append(contended, [{ type: 'Reserved', data: { by: 1 } }], { expectedRevision: 'no_stream' }),
      ...others.map((stream) => writerA.append(stream, events(2), { expectedRevision: 'no_stream' })),
      writerA.append(contended, [{ type: 'Reserved', data: { by: 2 } }], { expectedRevision: 'no_stream' }),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', ...others.map(() => 'fulfilled'), 'rejected']);
    expect((outcomes.at(-1) as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    expect((await writerB.readStream(contended)).map((e) => e.data)).toEqual([{ by: 1 }]);
    for (const stream of others) expect(await writerB.readStream(stream)).toHaveLength(2);
  });

  it('loses no event when two connections append with re-read-and-retry', async () => {
    const stream = freshStream('usage');
    const appendWithRetry = async (store: EventStore, writer: string, count: number): Promise<number> => {
      let conflicts = 0;
      for (let n = 0; n < count; n += 1) {
        for (;;) {
          const current = await store.readStream(stream);
          const expectedRevision = current.at(-1)?.revision ?? 'no_stream';
          try {
            await store.append(stream, [{ type: 'Reserved', data: { writer, n } }], { expectedRevision });
            break;
          } catch (error) {
            if (!(error instanceof WrongExpectedRevisionError)) throw error;
            conflicts += 1;
          }
        }
      }
      return conflicts;
    };
    await Promise.all([appendWithRetry(writerA, 'a', 25), appendWithRetry(writerB, 'b', 25)]);

    const stored = await writerA.readStream(stream);
    expect(stored.map((e) => e.revision)).toEqual(Array.from({ length: 50 }, (_, i) => BigInt(i)));
    for (const writer of ['a', 'b']) {
      const mine = stored.map((e) => e.data as { writer: string; n: number }).filter((d) => d.writer === writer);
      expect(mine.map((d) => d.n)).toEqual(Array.from({ length: 25 }, (_, i) => i));
    }
  });
}
