import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '@switchboard/eventstore';
import type { RecordedEvent } from '@switchboard/eventstore';
import { FeedReader } from '../src/feed-page.js';
import { tempDir } from './support.js';

const accountId = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const fact = (n: number) => ({ type: 'TicketGranted', data: { n }, metadata: { accountId } });

describe('FeedReader', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  let streamReads: number;
  beforeEach(() => {
    dir = tempDir();
    store = new SqliteEventStore(join(dir.path, 'events.sqlite'));
    streamReads = 0;
    const readStream = store.readStream.bind(store);
    store.readStream = (...args) => ((streamReads += 1), readStream(...args));
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it('hands each fact the stream before it, reading a stream once while later pages bring its next facts', async () => {
    const seen: string[] = [];
    const reader = new FeedReader(store, 'ticket', (recorded: RecordedEvent, earlier: readonly RecordedEvent[]) => {
      seen.push(`${recorded.stream}@${recorded.revision} after ${earlier.map((e) => e.revision).join(',') || 'nothing'}`);
      return null;
    });
    await store.append('ticket-a', [fact(0), fact(1)], { expectedRevision: 'no_stream' });
    // A reader starting in the middle of a stream reads what came before once.
    const first = await reader.page({ after: '1', limit: 10 });
    await store.append('ticket-a', [fact(2)], { expectedRevision: 1n });
    await store.append('ticket-a', [fact(3)], { expectedRevision: 2n });
    await reader.page({ after: first.head, limit: 10 });
    expect(seen).toEqual(['ticket-a@1 after 0', 'ticket-a@2 after 0,1', 'ticket-a@3 after 0,1,2']);
    expect(streamReads).toBe(1);

    // Asked again from further back (a consumer that lost its place): the kept history does not fit, so it is read.
    seen.length = 0;
    await reader.page({ after: '2', limit: 1 });
    expect(seen).toEqual(['ticket-a@2 after 0,1']);
    expect(streamReads).toBe(2);
  });
});
