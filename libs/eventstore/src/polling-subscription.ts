import type { RecordedEvent, Subscription } from './event-store.js';
import { NotifiedLogTail } from './log-tail.js';
import type { TailSource } from './log-tail.js';

/** A tail's source, and how long a live subscription waits for a wake before it reads anyway. */
export interface PollingSource extends TailSource {
  pollIntervalMs: number;
}

/**
 * Events per read while catching up: each page is one batch a projection applies in one transaction.
 * Larger pages rewrite a read model's pages fewer times (2,000 against 500: a quarter fewer page
 * writes, half the WAL checkpoints in the rebuild bench), at a few MB of memory and tens of ms per batch.
 */
export const CATCH_UP_PAGE_SIZE = 2_000;

/**
 * Catch-up by reading pages after the checkpoint (each page one batch), then live by waiting for an append
 * notification or the poll interval (appends nobody notified us of), whichever is first. Used by the SQLite
 * and PostgreSQL stores, whose positions both become visible in position order. Live, the events this
 * process appended are taken from the notifier instead of being read back, as long as nothing else can
 * lie between (its reads go through a `NotifiedLogTail`).
 */
export class PollingSubscription implements Subscription {
  readonly #stop = new AbortController();
  readonly #events: AsyncGenerator<readonly RecordedEvent[], void, undefined>;
  readonly #ended: () => void;

  /** `onEnded` runs once, however the subscription ends (close, abort, `break`). */
  constructor(source: PollingSource, after: bigint, onEnded: () => void, signal?: AbortSignal) {
    const abortFromCaller = (): void => void this.close();
    let ended = false;
    this.#ended = () => {
      if (ended) return;
      ended = true;
      signal?.removeEventListener('abort', abortFromCaller);
      onEnded();
    };
    this.#events = pollAfter(source, after, this.#stop.signal, this.#ended);
    signal?.addEventListener('abort', abortFromCaller, { once: true });
    if (signal?.aborted) abortFromCaller();
  }

  [Symbol.asyncIterator](): AsyncIterator<readonly RecordedEvent[]> {
    return this.#events;
  }

  async close(): Promise<void> {
    // Abort first: it wakes a pending wait, so the queued return() below can run.
    this.#stop.abort();
    await this.#events.return(undefined);
    // A generator closed before its first next() never runs its finally block.
    this.#ended();
  }
}

async function* pollAfter(
  source: PollingSource, after: bigint, stop: AbortSignal, onEnded: () => void,
): AsyncGenerator<readonly RecordedEvent[], void, undefined> {
  const { notifier, category } = source;
  const tail = new NotifiedLogTail(source);
  let checkpoint = after;
  try {
    while (!stop.aborted) {
      const seenVersion = notifier.version(category);
      const page = await tail.readAfter(checkpoint, CATCH_UP_PAGE_SIZE);
      // Closed while the read was in flight: a pending next() resolves as done, not with a late batch.
      if (stop.aborted) return;
      if (page.length > 0) {
        yield page;
        checkpoint = page.at(-1)!.position;
        if (stop.aborted) return;
      }
      if (page.length < CATCH_UP_PAGE_SIZE) await notifier.waitForAppend(seenVersion, source.pollIntervalMs, stop, category);
    }
  } finally {
    onEnded();
  }
}
