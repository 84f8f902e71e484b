import type { EventStreamPage, ReadEventStreamRequest } from '@switchboard/contracts';
import type { PublicFeed } from '../store/public-feed.js';

/**
 * One page of the live stream. Where it starts: after the cursor of an earlier page; else after
 * `after` (`Last-Event-ID`; an id unknown to this account starts from now, as a new client does);
 * else from now (an empty page whose cursor is the feed's head). The cursor moves past events the
 * filters skip, so a quiet filter does not rescan them.
 */
export function readStreamPage(feed: PublicFeed, request: ReadEventStreamRequest): EventStreamPage {
  const head = feed.head();
  let from: number;
  if (request.cursor !== undefined) from = Number(request.cursor);
  else if (request.after !== undefined) from = feed.positionOf(request.accountId, request.after) ?? head;
  else return { events: [], cursor: String(head) };
  const rows = feed.after(request.accountId, from, head, { types: request.types, sessionId: request.sessionId }, request.limit);
  const cursor = rows.length < request.limit ? head : rows.at(-1)!.seq;
  return { events: rows.map((r) => r.event), cursor: String(cursor) };
}
