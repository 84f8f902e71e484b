import { STREAM_CATEGORY } from '@switchboard/contracts';
import type { EventStore, RecordedEvent } from '@switchboard/eventstore';
import { toRawEvent } from '@switchboard/service-kit';
import type { MessageFacts } from '../contents/message-facts.js';

const PAGE = 1_000;
const WITH_CONTENT: ReadonlySet<string> = new Set(['MessageAccepted', 'MessageReceived']);

/**
 * The SHA-256 of every media file the account's messages named, sent or received: a scan of the
 * message category (pages of 1,000 events, memory flat but for the set found), contents opened
 * while the account's key still exists. Read from the store, not a read model, so it is complete
 * however far a read model lags or wherever it runs (the CLI works on the stores directly).
 */
export async function mediaOfAccount(store: EventStore, facts: MessageFacts, accountId: string): Promise<Set<string>> {
  const found = new Set<string>();
  for await (const page of categoryPages(store)) {
    const ours = page.filter((e) => WITH_CONTENT.has(e.type) && (e.data as { accountId?: unknown }).accountId === accountId);
    if (ours.length === 0) continue;
    await facts.prepare(ours);
    for (const recorded of ours) {
      const fact = facts.parse(toRawEvent(recorded));
      if (fact.type !== 'MessageAccepted' && fact.type !== 'MessageReceived') continue;
      const content = fact.data.content;
      if (content.type === 'media') found.add(content.media.sha256);
    }
  }
  return found;
}

/** The message category in position order, page by page (positions may have gaps: KurrentDB's are byte offsets). */
async function* categoryPages(store: EventStore): AsyncGenerator<RecordedEvent[]> {
  let page = await store.readAll({ category: STREAM_CATEGORY.message, maxCount: PAGE });
  while (page.length > 0) {
    yield page;
    const last = page.at(-1)!.position;
    page = (await store.readAll({ category: STREAM_CATEGORY.message, fromPosition: last, maxCount: PAGE + 1 })).filter((e) => e.position > last);
  }
}
