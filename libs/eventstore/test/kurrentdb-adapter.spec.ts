import { NO_STREAM, WrongExpectedVersionError, type AllStreamRecordedEvent } from '@kurrent/kurrentdb-client';
import { describe, expect, it } from 'vitest';
import { KurrentDbEventStore, WrongExpectedRevisionError, openEventStore } from '../src/index.js';
import { mapAppendError, toEventData, toRecordedEvent, toStreamState } from '../src/kurrentdb/kurrentdb-mapping.js';

// These run without a server; the behaviour against a real KurrentDB is the contract suite.
describe('KurrentDB adapter mapping', () => {
  it('maps our expected revisions to stream states', () => {
    expect([toStreamState('any'), toStreamState('no_stream'), toStreamState('stream_exists'), toStreamState(4n)])
      .toEqual(['any', 'no_stream', 'stream_exists', 4n]);
  });

  it('turns WrongExpectedVersionError into our typed error with the actual revision', () => {
    const behind = new WrongExpectedVersionError(undefined, { streamName: 'session-ses_1', expected: 1n, current: 3n });
    const missing = new WrongExpectedVersionError(undefined, { streamName: 'session-ses_2', expected: 'stream_exists', current: NO_STREAM });

    expect(mapAppendError(behind, 'session-ses_1', 1n)).toEqual(new WrongExpectedRevisionError('session-ses_1', 1n, 3n));
    expect(mapAppendError(missing, 'session-ses_2', 'stream_exists')).toMatchObject({ expected: 'stream_exists', actual: 'no_stream' });
    const other = new Error('14 UNAVAILABLE');
    expect(mapAppendError(other, 'session-ses_1', 1n)).toBe(other);
  });

  it('writes JSON events with an id and reads them back in our shape', () => {
    const written = toEventData({ type: 'SessionCreated', data: { name: 'Shop' } });
    expect(written).toMatchObject({ contentType: 'application/json', type: 'SessionCreated', data: { name: 'Shop' }, metadata: {} });
    expect(written.id).toMatch(/^[0-9a-f-]{36}$/);

    const created = new Date('2026-11-21T10:00:00Z');
    const stored = {
      streamId: 'session-ses_1', id: written.id, isJson: true, revision: 0n, type: 'SessionCreated', created,
      data: { name: 'Shop' }, metadata: new TextEncoder().encode('{"accountId":"acc_1"}'), position: { commit: 1234n, prepare: 1234n },
    } as AllStreamRecordedEvent;
    expect(toRecordedEvent(stored)).toEqual({
      stream: 'session-ses_1', type: 'SessionCreated', revision: 0n, position: 1234n,
      data: { name: 'Shop' }, metadata: { accountId: 'acc_1' }, recordedAt: created, id: written.id,
    });
  });
});

describe('openEventStore with a KurrentDB URL', () => {
  it('selects the KurrentDB adapter, which fails fast (not hangs) when the server is down', async () => {
    const store = openEventStore({ url: 'kurrentdb://127.0.0.1:1?tls=false', sqlitePath: '/never/used.sqlite' });
    expect(store).toBeInstanceOf(KurrentDbEventStore);
    const append = store.append('session-ses_1', [{ type: 'SessionCreated', data: {} }], { expectedRevision: 'no_stream' });
    // The append reads the stream's chain head first: the client's read error (UnavailableError) or its append error (14 UNAVAILABLE).
    await expect(append).rejects.toThrow(/unavailable/i);
    await expect(append).rejects.not.toBeInstanceOf(WrongExpectedRevisionError);
    await store.close();
  });
});
