import { STREAM_CATEGORY } from '@switchboard/contracts';
import type { FeedReply, FeedRequest } from '@switchboard/contracts';
import type { EventStore, RecordedEvent } from '@switchboard/eventstore';
import { FeedReader, toRawEvent } from '@switchboard/service-kit';
import type { MessageFacts } from '../contents/message-facts.js';
import { contextAfter, EMPTY_CONTEXT, toPublicEvent } from './public-events.js';

/**
 * `sb.v1.messaging.feed`: the message facts of this service's store as public events. A received
 * message's content is opened for its `message.received` (erased once its key is destroyed).
 */
export function messageFeed(store: EventStore, facts: MessageFacts): (request: FeedRequest) => Promise<FeedReply> {
  const parse = (recorded: RecordedEvent) => facts.parse(toRawEvent(recorded));
  const reader = new FeedReader(store, STREAM_CATEGORY.message, async (recorded, earlier) => {
    await facts.prepare([recorded, ...earlier]);
    const before = earlier.reduce((context, r) => contextAfter(context, parse(r)), EMPTY_CONTEXT);
    return toPublicEvent({ eventId: recorded.id, event: parse(recorded) }, before);
  });
  return (request) => reader.page(request);
}
