import type { RecordedEvent, Subscription } from './event-store.js';
import { recordedEventOf } from './append-notifier.js';
import type { AppendNotifier } from './append-notifier.js';

export interface PollingSource {
  /** Up to `limit` events with a position greater than `checkpoint`, in position order. */
  readAfter(checkpoint: bigint, limit: number): RecordedEvent[] | Promise<RecordedEvent[]>;
  notifier: AppendNotifier;
  pollIntervalMs: number;
  /** The category read, so that only its appends wake the subscription; undefined: all. */
  category?: string | undefined;
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
 * process appended are taken from the notifier (`appendedAfter`) instead of being read back, as long as
 * nothing else can lie between (see `pollAfter`).
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
  let checkpoint = after;
  // Every event of the category at or before `covered` has been delivered (or precedes `after`):
  // known after a read that reached the end of the log, and carried on by this process's own
  // appends as long as they follow it without a gap. Another writer's announced append since the
  // last read (`foreignSeen`) means a read again.
  let covered: bigint | undefined;
  let foreignSeen = 0;
  try {
    while (!stop.aborted) {
      const seenVersion = notifier.version(category);
      const appended = covered !== undefined && notifier.foreignVersion(category) === foreignSeen
        ? notifier.appendedAfter(covered, category) : undefined;
      let page: readonly RecordedEvent[];
      // Nothing of our own to hand over (a poll, a wake by another writer): the store is asked.
      if (appended !== undefined && appended.length > 0 && appended.length <= CATCH_UP_PAGE_SIZE) {
        page = appended.map(recordedEventOf);
        covered = notifier.ownHead();
      } else {
        foreignSeen = notifier.foreignVersion(category);
        // This process's appends up to here committed before the read starts: it sees them all.
        const ownHead = notifier.ownHead();
        page = await source.readAfter(checkpoint, CATCH_UP_PAGE_SIZE);
        // Closed while the read was in flight: a pending next() resolves as done, not with a late batch.
        if (stop.aborted) return;
        const last = page.at(-1)?.position ?? checkpoint;
        covered = page.length < CATCH_UP_PAGE_SIZE && ownHead !== undefined && ownHead > last ? ownHead : last;
      }
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
