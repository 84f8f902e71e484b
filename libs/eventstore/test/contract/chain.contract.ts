import { afterAll, beforeAll, expect, it } from 'vitest';
import { GENESIS_HASH, eventHash, verifyStream, type EventStore, type RecordedEvent } from '../../src/index.js';
import { events, freshStream, type ContractTarget } from './helpers.js';

/** Every event links to the one before it (genesis for revision 0), and its hash is its content's. */
function expectValidChain(stored: readonly RecordedEvent[]): void {
  let prevHash = GENESIS_HASH;
  for (const event of stored) {
    expect(event.metadata['prevHash'], `prevHash of revision ${event.revision}`).toBe(prevHash);
    expect(event.metadata['hash'], `hash of revision ${event.revision}`).toBe(eventHash(prevHash, event));
    prevHash = event.metadata['hash'] as string;
  }
  const { summary, findings } = verifyStream(stored);
  expect(findings).toEqual([]);
  expect(summary).toMatchObject({ events: stored.length, unchainedEvents: 0, chainedFrom: 0n, head: prevHash });
}

export function chainContract(target: () => ContractTarget): void {
  let writerA: EventStore;
  let writerB: EventStore;
  beforeAll(async () => {
    [writerA, writerB] = await Promise.all([target().connect(), target().connect()]);
  });
  afterAll(async () => {
    await Promise.all([writerA?.close(), writerB?.close()]);
  });

  it('chains every appended event on the one before it, keeping the metadata given', async () => {
    const stream = freshStream('session');
    const first = await writerA.append(stream, [{ type: 'SessionCreated', data: { name: 'Shop' }, metadata: { accountId: 'acc_1', schemaVersion: 2 } }], { expectedRevision: 'no_stream' });
    await writerA.append(stream, events(3), { expectedRevision: first.nextRevision });
    await writerB.append(stream, [{ type: 'Bare', data: undefined }], { expectedRevision: 'stream_exists' });

    const stored = await writerA.readStream(stream);
    expect(stored).toHaveLength(5);
    expect(stored[0]!.metadata).toMatchObject({ accountId: 'acc_1', schemaVersion: 2 });
    expectValidChain(stored);
  });

  it('chains appends made at once to one stream on each other (one turn, one commit where the adapter batches)', async () => {
    const stream = freshStream('usage');
    await writerA.append(stream, events(1), { expectedRevision: 'no_stream' });
    await Promise.all(Array.from({ length: 10 }, (_, n) => writerA.append(stream, events(2, 'Reserved', 10 * n), { expectedRevision: 'any' })));

    const stored = await writerB.readStream(stream);
    expect(stored).toHaveLength(21);
    expectValidChain(stored);
  });

  it('keeps one chain when two connections append to one stream concurrently', async () => {
    const stream = freshStream('usage');
    const appendMany = async (store: EventStore, writer: string) => {
      for (let n = 0; n < 15; n += 1) await store.append(stream, [{ type: 'Reserved', data: { writer, n } }], { expectedRevision: 'any' });
    };
    await Promise.all([appendMany(writerA, 'a'), appendMany(writerB, 'b')]);

    const stored = await writerA.readStream(stream);
    expect(stored).toHaveLength(30);
    expectValidChain(stored);
  });
}
