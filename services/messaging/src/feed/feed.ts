import { messageEventParser, STREAM_CATEGORY } from '@switchboard/contracts';
import type { FeedReply, FeedRequest } from '@switchboard/contracts';
import type { EventStore, RecordedEvent } from '@switchboard/eventstore';
import { FeedReader, toRawEvent } from '@switchboard/service-kit';
import { contextAfter, EMPTY_CONTEXT, toPublicEvent } from './public-events.js';

const parse = (recorded: RecordedEvent) => messageEventParser.parse(toRawEvent(recorded));

/** `sb.v1.messaging.feed`: the message facts of this service's store as public events. */
export function messageFeed(store: EventStore): (request: FeedRequest) => Promise<FeedReply> {
  const reader = new FeedReader(store, STREAM_CATEGORY.message, (recorded, earlier) => {
    const before = earlier.reduce((context, r) => contextAfter(context, parse(r)), EMPTY_CONTEXT);
    return toPublicEvent({ eventId: recorded.id, event: parse(recorded) }, before);
  });
  return (request) => reader.page(request);
}
