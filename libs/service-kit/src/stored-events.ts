import { randomUUID } from 'node:crypto';
import type { EventMetadata, RawEvent } from '@switchboard/contracts';
import type { NewEvent, RecordedEvent } from '@switchboard/eventstore';
import { currentTraceparent } from '@switchboard/telemetry';

/** A domain event as the contracts define it: `{ type, version, data }`. */
export interface DomainEvent {
  readonly type: string;
  readonly version: number;
  readonly data: unknown;
}

/**
 * How a domain event is stored: the store's `type` is the event type, `data` its data, and the
 * schema version travels in the metadata (`schemaVersion`) next to `EventMetadata`.
 */
export function toNewEvent(event: DomainEvent, metadata: EventMetadata): NewEvent {
  return { type: event.type, data: event.data, metadata: { ...metadata, schemaVersion: event.version } };
}

/** The reverse of `toNewEvent`, ready for a contracts event parser. */
export function toRawEvent(recorded: RecordedEvent): RawEvent {
  const version = recorded.metadata['schemaVersion'];
  return { type: recorded.type, version: typeof version === 'number' ? version : 1, data: recorded.data };
}

export interface MetadataInput {
  accountId: string;
  /** The request or flow this event belongs to; a new one is minted when absent. */
  correlationId?: string | undefined;
  /** The command or event that caused this one; defaults to the correlation id. */
  causationId?: string | undefined;
  now: Date;
}

/** Metadata for events appended now, carrying the active trace so later work can link back. */
export function eventMetadata(input: MetadataInput): EventMetadata {
  const correlationId = input.correlationId ?? randomUUID();
  const traceparent = currentTraceparent();
  return {
    accountId: input.accountId,
    correlationId,
    causationId: input.causationId ?? correlationId,
    ...(traceparent ? { traceparent } : {}),
    occurredAt: input.now.toISOString(),
  };
}

/**
 * The `traceparent` stored with the last event of `type` in `events` (the first event's when no
 * type is given): what later work (a receipt, recovery) links its span to.
 */
/** The distinct traceparents of `events` (a batch applied at once links to every request behind it). */
export function traceparentsOf(events: readonly RecordedEvent[]): string[] {
  const found = new Set<string>();
  for (const event of events) {
    const traceparent = event.metadata['traceparent'];
    if (typeof traceparent === 'string') found.add(traceparent);
  }
  return [...found];
}

export function traceparentOf(events: readonly RecordedEvent[], type?: string): string | undefined {
  const event = type === undefined ? events[0] : events.findLast((e) => e.type === type);
  const traceparent = event?.metadata['traceparent'];
  return typeof traceparent === 'string' ? traceparent : undefined;
}
