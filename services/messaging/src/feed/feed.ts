import { messageEventParser, STREAM_CATEGORY } from '@switchboard/contracts';
import type { FeedReply, FeedRequest, StoredMessageEvent } from '@switchboard/contracts';
import type { EventStore, RecordedEvent } from '@switchboard/eventstore';
import { FeedReader, toRawEvent } from '@switchboard/service-kit';
import type { MessageFacts } from '../contents/message-facts.js';
import { contextAfter, EMPTY_CONTEXT, toPublicEvent } from './public-events.js';
import type { FeedFact, MessageContext } from './public-events.js';

/**
 * `sb.v1.messaging.feed`: the message facts of this service's store as public events. Only a
 * received message's content is opened, for its `message.received` (erased once its key is
 * destroyed); no public event carries an outbound content, so it is never decrypted here.
 */
export function messageFeed(store: EventStore, facts: MessageFacts): (request: FeedRequest) => Promise<FeedReply> {
  // The context each fact left its stream in, kept as long as the reader keeps the fact: a
  // message's sent, delivered and read facts do not each fold the facts before them again.
  const contexts = new WeakMap<RecordedEvent, MessageContext>();
  const reader = new FeedReader(store, STREAM_CATEGORY.message, async (recorded, earlier) => {
    const before = contextThrough(earlier, contexts);
    const stored = storedFact(recorded);
    const event: FeedFact = stored.type === 'MessageReceived' ? await opened(facts, recorded, stored) : stored;
    contexts.set(recorded, contextAfter(before, event));
    return toPublicEvent({ eventId: recorded.id, event }, before);
  });
  return (request) => reader.page(request);
}

/** The context after `earlier` (a stream's facts, oldest first), from what is kept where it can be. */
function contextThrough(earlier: readonly RecordedEvent[], contexts: WeakMap<RecordedEvent, MessageContext>): MessageContext {
  const last = earlier.at(-1);
  const kept = last && contexts.get(last);
  if (kept) return kept;
  let context = EMPTY_CONTEXT;
  for (const recorded of earlier) {
    context = contexts.get(recorded) ?? contextAfter(context, storedFact(recorded));
    contexts.set(recorded, context);
  }
  return context;
}

/** A fact of this service's own store, as written (read models and the feed trust their store: `decode`). */
function storedFact(recorded: RecordedEvent): StoredMessageEvent {
  return messageEventParser.decode(toRawEvent(recorded));
}

async function opened(facts: MessageFacts, recorded: RecordedEvent, received: StoredMessageEvent & { type: 'MessageReceived' }): Promise<FeedFact> {
  await facts.prepare([recorded]);
  return facts.open(received);
}
