import type { LogTail, RecordedEvent } from './event-store.js';
import { recordedEventOf } from './append-notifier.js';
import type { AppendNotifier } from './append-notifier.js';

/** What a tail reads from: the store's read after a position, and its notifier. */
export interface TailSource {
  /** Up to `limit` events with a position greater than `after`, in position order. */
  readAfter(after: bigint, limit: number): RecordedEvent[] | Promise<RecordedEvent[]>;
  notifier: AppendNotifier;
  /** The category read; undefined: the whole log. */
  category?: string | undefined;
}

/**
 * A follower's reads of the log (or one category), for the SQLite and PostgreSQL stores, whose
 * positions both become visible in position order. The events this process appended since the
 * last read are taken from the notifier (`appendedAfter`) instead of being read back, as long as
 * nothing else can lie between: the read before reached the end of the log, the reader asks on
 * from where it got to, and no other writer announced an append since.
 */
export class NotifiedLogTail implements LogTail {
  /**
   * Every event of the category at or before it was in this tail's reads, none after `#reached`:
   * known after a read that reached the end of the log, and carried on by this process's own
   * appends as long as they follow it without a gap.
   */
  #covered: bigint | undefined;
  /** Where the last read ended: its last event, or the position it read after when it found none. */
  #reached = -1n;
  /** Another writer's announced appends as of the last read from the store. */
  #foreignSeen = 0;

  constructor(private readonly source: TailSource) {}

  async readAfter(after: bigint, limit: number, through?: bigint): Promise<readonly RecordedEvent[]> {
    const handed = this.#handedOver(after, limit, through);
    if (handed !== undefined) return handed;
    const { notifier, category } = this.source;
    // Taken before the read (whatever is announced during it is looked at again), and kept only
    // once the read succeeded: a failed read has seen nothing, so an announcement stays unseen.
    const foreignSeen = notifier.foreignVersion(category);
    // This process's appends up to here committed before the read starts: it sees them all.
    const ownHead = notifier.ownHead();
    const page = await this.source.readAfter(after, limit);
    this.#foreignSeen = foreignSeen;
    const last = page.at(-1)?.position ?? after;
    this.#covered = page.length < limit && ownHead !== undefined && ownHead > last ? ownHead : last;
    this.#reached = last;
    return page;
  }

  /**
   * The events after `after` from this process's own appends, or undefined when only the store can
   * tell: asked from before where the last read ended, kept commits that do not reach back, more
   * than a page, or, without `through`, another writer's announced append since or nothing of our
   * own (a poll, a wake by another writer: the store is asked). With `through` at or below the last
   * own append, the kept commits alone are exact: nobody else wrote between them.
   */
  #handedOver(after: bigint, limit: number, through: bigint | undefined): RecordedEvent[] | undefined {
    const { notifier, category } = this.source;
    const covered = this.#covered;
    if (covered === undefined || after < this.#reached) return undefined;
    const ownHead = notifier.ownHead();
    if (through === undefined ? notifier.foreignVersion(category) !== this.#foreignSeen : ownHead === undefined || ownHead < through) return undefined;
    const appended = notifier.appendedAfter(covered, category)?.filter((event) => event.position > after);
    if (appended === undefined || appended.length > limit || (appended.length === 0 && through === undefined)) return undefined;
    // Not moved back: a read may have reached past this process's last append.
    if (ownHead !== undefined && ownHead > covered) this.#covered = ownHead;
    this.#reached = appended.at(-1)?.position ?? after;
    return appended.map(recordedEventOf);
  }
}
