import type { AllStreamResolvedEvent, AllStreamSubscription } from '@kurrent/kurrentdb-client';
import type { RecordedEvent, Subscription } from '../event-store.js';
import { isUserEvent, toRecordedEvent } from './kurrentdb-mapping.js';

/**
 * Wraps a KurrentDB catch-up subscription to `$all` (the server pages the stored events,
 * then switches to live by itself) in our Subscription: our event shape, no system events.
 */
export class KurrentDbSubscription implements Subscription {
  readonly #stop = new AbortController();
  readonly #events: AsyncGenerator<readonly RecordedEvent[], void, undefined>;
  readonly #ended: () => Promise<void>;

  /** `onEnded` runs once, however the subscription ends (close, abort, `break`, error). */
  constructor(source: AllStreamSubscription, onEnded: () => void, signal?: AbortSignal) {
    const abortFromCaller = (): void => void this.close();
    let ended: Promise<void> | undefined;
    this.#ended = () => {
      ended ??= (async () => {
        signal?.removeEventListener('abort', abortFromCaller);
        onEnded();
        // Cancels the server-side subscription (a gRPC stream), then frees the local buffer.
        // A stream that never connected rejects here; the caller already has that error.
        await source.unsubscribe().catch(() => undefined);
        source.destroy();
      })();
      return ended;
    };
    this.#events = userEvents(source, this.#stop.signal, this.#ended);
    signal?.addEventListener('abort', abortFromCaller, { once: true });
    if (signal?.aborted) abortFromCaller();
  }

  [Symbol.asyncIterator](): AsyncIterator<readonly RecordedEvent[]> {
    return this.#events;
  }

  async close(): Promise<void> {
    // Abort first: it settles a next() waiting for a live event, so the queued return() can run.
    this.#stop.abort();
    await this.#events.return(undefined);
    await this.#ended();
  }
}

/**
 * Iterates the client's stream until it ends or `stop` aborts. The race does not rely on the
 * cancelled gRPC stream ending the readable, so closing can never hang on a silent server.
 */
async function* userEvents(
  source: AllStreamSubscription, stop: AbortSignal, onEnded: () => Promise<void>,
): AsyncGenerator<readonly RecordedEvent[], void, undefined> {
  const incoming = (source as AsyncIterable<AllStreamResolvedEvent>)[Symbol.asyncIterator]();
  const stopped = new Promise<IteratorReturnResult<undefined>>((resolve) => {
    const done = (): void => resolve({ done: true, value: undefined });
    if (stop.aborted) done();
    else stop.addEventListener('abort', done, { once: true });
  });
  try {
    for (;;) {
      const next = await Promise.race([incoming.next(), stopped]);
      if (next.done) return;
      // The client hands over one event at a time: each is a batch of one.
      if (isUserEvent(next.value.event)) yield [toRecordedEvent(next.value.event, next.value.commitPosition)];
    }
  } finally {
    await onEnded();
  }
}
