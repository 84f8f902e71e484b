import type { FeedEntry, FeedReply, FeedRequest, PublicEvent } from '@switchboard/contracts';
import type { EventStore, LogTail, RecordedEvent } from '@switchboard/eventstore';

/**
 * Maps one stored fact to its public event (or null). `earlier` holds the events of the same
 * stream before it, oldest first, so a mapper can tell the state the fact changed.
 */
export type PublicEventMapper = (recorded: RecordedEvent, earlier: readonly RecordedEvent[]) => PublicEvent | null | Promise<PublicEvent | null>;

/** Streams whose events a feed keeps between pages (each message or session while it is busy). */
const REMEMBERED_STREAMS = 1_024;

/**
 * A source service's public feed (`sb.v1.<source>.feed`): pages of its own events of `category`
 * after `request.after`, mapped. A stream's earlier events are read from the store once and then
 * kept (for the most recently seen streams) as later pages bring its next events, so a message's
 * sent, delivered and read facts do not each read its stream again. `head` is the last position
 * read, so facts without a public event are not read again. Pages are read through one tail of the
 * category: the facts this process just appended are handed over, not read back.
 */
export class FeedReader {
  readonly #histories = new Map<string, RecordedEvent[]>();
  readonly #tail: LogTail;

  constructor(
    private readonly store: EventStore,
    category: string,
    private readonly map: PublicEventMapper,
  ) {
    this.#tail = store.tail(category);
  }

  async page(request: FeedRequest): Promise<FeedReply> {
    const page = await this.#tail.readAfter(request.after === null ? -1n : BigInt(request.after), request.limit);
    const events: FeedEntry[] = [];
    for (const recorded of page) {
      const earlier = await this.#earlier(recorded);
      const accountId = recorded.metadata['accountId'];
      const event = typeof accountId === 'string' ? await this.map(recorded, earlier) : null;
      if (event !== null && typeof accountId === 'string') events.push({ position: recorded.position.toString(), accountId, event });
      earlier.push(recorded);
    }
    const last = page.at(-1);
    return { events, head: last ? last.position.toString() : null };
  }

  /** The stream's events before `recorded`: kept from earlier pages when they end right before it, else read. */
  async #earlier(recorded: RecordedEvent): Promise<RecordedEvent[]> {
    const kept = this.#histories.get(recorded.stream);
    this.#histories.delete(recorded.stream);
    const earlier = kept !== undefined && BigInt(kept.length) === recorded.revision
      ? kept
      : recorded.revision === 0n ? [] : await this.store.readStream(recorded.stream, { maxCount: Number(recorded.revision) });
    // Re-inserted: the Map's order is the recency order.
    this.#histories.set(recorded.stream, earlier);
    if (this.#histories.size > REMEMBERED_STREAMS) this.#histories.delete(this.#histories.keys().next().value!);
    return earlier;
  }
}
