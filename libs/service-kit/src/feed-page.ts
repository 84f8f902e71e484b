import type { FeedEntry, FeedReply, FeedRequest, PublicEvent } from '@switchboard/contracts';
import type { EventStore, RecordedEvent } from '@switchboard/eventstore';

/**
 * Maps one stored fact to its public event (or null). `earlier` holds the events of the same
 * stream before it, oldest first, so a mapper can tell the state the fact changed.
 */
export type PublicEventMapper = (recorded: RecordedEvent, earlier: readonly RecordedEvent[]) => PublicEvent | null | Promise<PublicEvent | null>;

/**
 * One page of a source service's public feed (`sb.v1.<source>.feed`): its own events of
 * `category` after `request.after`, mapped. Each stream's earlier events are read once per page.
 * `head` is the last position read, so facts without a public event are not read again.
 */
export async function readFeedPage(store: EventStore, category: string, request: FeedRequest, map: PublicEventMapper): Promise<FeedReply> {
  const fromPosition = request.after === null ? 0n : BigInt(request.after) + 1n;
  const page = await store.readAll({ category, fromPosition, maxCount: request.limit });
  const history = new Map<string, RecordedEvent[]>();
  const events: FeedEntry[] = [];
  for (const recorded of page) {
    let earlier = history.get(recorded.stream);
    if (earlier === undefined) {
      earlier = recorded.revision === 0n ? [] : await store.readStream(recorded.stream, { maxCount: Number(recorded.revision) });
      history.set(recorded.stream, earlier);
    }
    const accountId = recorded.metadata['accountId'];
    const event = typeof accountId === 'string' ? await map(recorded, earlier) : null;
    if (event !== null && typeof accountId === 'string') events.push({ position: recorded.position.toString(), accountId, event });
    earlier.push(recorded);
  }
  const last = page.at(-1);
  return { events, head: last ? last.position.toString() : null };
}
