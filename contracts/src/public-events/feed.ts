import { createHash } from 'node:crypto';
import { z } from 'zod';
import { AccountId } from '../common/ids.js';
import { defineSubject, SUBJECT_PREFIX } from '../bus/subject.js';
import { PublicEvent } from './catalogue.js';

// How public events travel from the services whose facts they report (sessions, messaging) to
// the events service: each source serves a pull API over its own store (`sb.v1.<source>.feed`)
// and publishes a wake-up after appends; the events service pulls after its checkpoint. A lost
// wake-up only delays (the puller also polls); nothing is pushed, so nothing is lost.

/** Services whose streams feed the public catalogue. */
export const FEED_SOURCES = ['sessions', 'messaging'] as const;
export type FeedSource = (typeof FEED_SOURCES)[number];

/** A store position as a decimal string (positions are 64-bit; JSON numbers are not). */
export const FeedPosition = z.string().regex(/^(0|[1-9][0-9]{0,19})$/, 'must be a store position (decimal digits)');

export const FeedRequest = z.object({
  /** Events strictly after this position; null reads from the first event. */
  after: FeedPosition.nullable(),
  limit: z.number().int().min(1).max(1000).default(200),
});
export type FeedRequest = z.infer<typeof FeedRequest>;

export const FeedEntry = z.object({ position: FeedPosition, accountId: AccountId, event: PublicEvent });
export type FeedEntry = z.infer<typeof FeedEntry>;

/**
 * `head`: the position this page read up to (source events that map to nothing are skipped, so
 * it may be past the last entry); the next request asks for `after: head`. Null when the store
 * had nothing after `after`.
 */
export const FeedReply = z.object({ events: z.array(FeedEntry), head: FeedPosition.nullable() });
export type FeedReply = z.infer<typeof FeedReply>;

/** `sb.v1.<source>.feed`: each source's public events after a position. */
export const FeedSubjects = {
  sessions: defineSubject(`${SUBJECT_PREFIX}.sessions.feed`, FeedRequest, FeedReply),
  messaging: defineSubject(`${SUBJECT_PREFIX}.messaging.feed`, FeedRequest, FeedReply),
} as const satisfies Record<FeedSource, unknown>;

/** Published (core NATS, no payload that matters) after a source appended feed-worthy facts. */
export const feedWakeSubject = (source: FeedSource): string => `${SUBJECT_PREFIX}.evt.feed.${source}`;

/** Published by the events service after it recorded new public events of an account (SSE wake-up). */
export const publicEventsWakeSubject = (accountId: AccountId): string => `${SUBJECT_PREFIX}.evt.public.${accountId}`;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** 26 Crockford base32 characters from the first 130 bits of `bytes`. */
function base32(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < 26; i++) {
    const bit = i * 5;
    const byte = bit >> 3;
    const word = ((bytes[byte] ?? 0) << 8) | (bytes[byte + 1] ?? 0);
    out += CROCKFORD[(word >> (11 - (bit & 7))) & 31];
  }
  return out;
}

/**
 * The public id of the event reporting a stored fact: `evt_` + 26 base32 characters of
 * SHA-256(source event id, type). Derived, never stored by the source, so retries, replays and
 * the stream all name the same event the same way.
 */
export function publicEventId(sourceEventId: string, type: string): string {
  return `evt_${base32(createHash('sha256').update(`${sourceEventId}\u0000${type}`).digest())}`;
}
