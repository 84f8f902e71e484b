import { z } from 'zod';
import { MESSAGE_EVENTS, SEALED_MESSAGE_EVENTS } from '../messaging/events.js';
import { ACCOUNT_EVENTS, USAGE_EVENTS } from '../quota/events.js';
import { SESSION_EVENTS } from '../sessions/events.js';
import { WEBHOOK_EVENTS } from '../webhooks/events.js';
import type { EventSchema } from './define.js';
import { EventMetadata } from './metadata.js';
import { createEventParser } from './parser.js';
import { eventSubject, STREAM_CATEGORY } from './streams.js';
import type { StreamCategory } from './streams.js';

/** Every event schema of every service, each version registered once. */
export const ALL_EVENTS = [...SESSION_EVENTS, ...MESSAGE_EVENTS, ...SEALED_MESSAGE_EVENTS, ...ACCOUNT_EVENTS, ...USAGE_EVENTS, ...WEBHOOK_EVENTS] as const;

/** Any domain event (current versions). */
export type DomainEvent = z.output<(typeof ALL_EVENTS)[number]>;
export type DomainEventType = DomainEvent['type'];

/** Reads any event by type + version (audit and replay tooling). */
export const domainEventParser = createEventParser(ALL_EVENTS);

function categoryMap(): Record<string, StreamCategory> {
  const entries: [readonly EventSchema[], StreamCategory][] = [
    [SESSION_EVENTS, STREAM_CATEGORY.session],
    [MESSAGE_EVENTS, STREAM_CATEGORY.message],
    [ACCOUNT_EVENTS, STREAM_CATEGORY.account],
    [USAGE_EVENTS, STREAM_CATEGORY.usage],
    [WEBHOOK_EVENTS, STREAM_CATEGORY.webhook],
  ];
  return Object.fromEntries(entries.flatMap(([schemas, category]) => schemas.map((s) => [s.shape.type.value, category])));
}

/** The stream category each event type is written to. */
export const EVENT_CATEGORY = categoryMap() as Readonly<Record<DomainEventType, StreamCategory>>;

/** `sb.v1.evt.<category>.<Event>` for an event type. */
export function subjectForEvent(type: DomainEventType): string {
  return eventSubject(EVENT_CATEGORY[type], type);
}

/**
 * What is published on `sb.v1.evt.…` after an append: the stored event with its position, so a
 * subscriber can deduplicate (`eventId`) and detect gaps (`revision`). `data` is left unparsed
 * here; subscribers parse it with the category's parser by type + version.
 */
export const PublishedEvent = z.object({
  eventId: z.string().min(1).max(128),
  stream: z.string().min(1).max(256),
  revision: z.number().int().min(0),
  type: z.string().min(1),
  version: z.number().int().min(1),
  data: z.unknown(),
  metadata: EventMetadata,
});
export type PublishedEvent = z.infer<typeof PublishedEvent>;
