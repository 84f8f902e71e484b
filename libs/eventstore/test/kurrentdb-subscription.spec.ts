import type { AllStreamResolvedEvent, AllStreamSubscription } from '@kurrent/kurrentdb-client';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { KurrentDbSubscription } from '../src/kurrentdb/kurrentdb-subscription.js';

/** Stands in for the client's subscription: a readable of resolved events that never ends by itself. */
function fakeServerSubscription() {
  const stream = new PassThrough({ objectMode: true });
  let unsubscribed = 0;
  const source = Object.assign(stream, { unsubscribe: async () => void (unsubscribed += 1) }) as unknown as AllStreamSubscription;
  const deliver = (streamId: string, revision: bigint, commit: bigint): void => {
    const event = {
      streamId, revision, id: `id-${commit}`, type: streamId.startsWith('$') ? '$metadata' : 'ThingHappened', isJson: true,
      created: new Date(), data: { commit: Number(commit) }, metadata: {}, position: { commit, prepare: commit },
    };
    stream.write({ event } as AllStreamResolvedEvent);
  };
  return { source, deliver, unsubscribedCount: () => unsubscribed };
}

describe('KurrentDbSubscription', () => {
  it('yields user events in our shape and skips system events', async () => {
    const server = fakeServerSubscription();
    const subscription = new KurrentDbSubscription(server.source, () => {});
    server.deliver('$$session-ses_1', 0n, 10n);
    server.deliver('session-ses_1', 0n, 20n);
    const first = await subscription[Symbol.asyncIterator]().next();
    expect(first.value).toMatchObject([{ stream: 'session-ses_1', revision: 0n, position: 20n, data: { commit: 20 } }]);
    await subscription.close();
  });

  it('closes while waiting for a live event, even if the server stream never ends, and unsubscribes once', async () => {
    const server = fakeServerSubscription();
    let ended = 0;
    const subscription = new KurrentDbSubscription(server.source, () => (ended += 1));
    const pending = subscription[Symbol.asyncIterator]().next();
    await subscription.close();
    expect(await pending).toEqual({ done: true, value: undefined });
    await subscription.close();
    expect([ended, server.unsubscribedCount()]).toEqual([1, 1]);
  });

  it('unsubscribes when a for-await loop breaks, and ends on abort', async () => {
    const server = fakeServerSubscription();
    server.deliver('session-ses_1', 0n, 1n);
    for await (const _event of new KurrentDbSubscription(server.source, () => {})) break;
    expect(server.unsubscribedCount()).toBe(1);

    const other = fakeServerSubscription();
    const abort = new AbortController();
    const pending = new KurrentDbSubscription(other.source, () => {}, abort.signal)[Symbol.asyncIterator]().next();
    abort.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(other.unsubscribedCount()).toBe(1);
  });
});
