import type {
  AllStreamRecordedEvent, AppendStreamState, JSONEventData, Position, ReadPosition, RecordedEvent as KurrentRecordedEvent,
} from '@kurrent/kurrentdb-client';
import { kurrent } from './kurrentdb-client.js';
import { randomUUID } from 'node:crypto';
import {
  StoredEvent, WrongExpectedRevisionError,
  type ActualRevision, type ExpectedRevision, type NewEvent, type RecordedEvent, type SubscriptionStart,
} from '../event-store.js';

export function toStreamState(expected: ExpectedRevision): AppendStreamState {
  switch (expected) {
    case 'any': return kurrent().ANY;
    case 'no_stream': return kurrent().NO_STREAM;
    case 'stream_exists': return kurrent().STREAM_EXISTS;
    default: return expected;
  }
}

export function toEventData(event: NewEvent): JSONEventData {
  return {
    id: event.id ?? randomUUID(),
    contentType: 'application/json',
    type: event.type,
    // The client types JSON data as object | array | string, but JSON.stringify()s any value and
    // parses it back on read, so numbers, booleans and null round-trip too.
    data: (event.data ?? null) as JSONEventData['data'],
    metadata: event.metadata ?? {},
  };
}

/** Our WrongExpectedRevisionError for theirs; any other error passes through unchanged. */
export function mapAppendError(error: unknown, stream: string, expected: ExpectedRevision): unknown {
  if (!(error instanceof kurrent().WrongExpectedVersionError)) return error;
  const actual: ActualRevision = typeof error.actualState === 'bigint' ? error.actualState : 'no_stream';
  return new WrongExpectedRevisionError(stream, expected, actual);
}

/**
 * KurrentDB's log position is a (commit, prepare) pair; since explicit transactions are gone
 * the two are equal for every event written through this adapter, so the commit part alone
 * identifies an event and round-trips as our single `position`.
 */
export function toReadPosition(position: bigint): Position {
  return { commit: position, prepare: position };
}

export function subscriptionStart(from: SubscriptionStart): ReadPosition {
  return from === 'start' ? kurrent().START : toReadPosition(from);
}

export function isUserEvent(event: KurrentRecordedEvent | undefined): event is KurrentRecordedEvent {
  return event !== undefined && !event.streamId.startsWith('$') && !event.type.startsWith('$');
}

export function toRecordedEvent(event: KurrentRecordedEvent | AllStreamRecordedEvent, commitPosition?: bigint): RecordedEvent {
  const position = knownPosition(event.position?.commit) ?? knownPosition(commitPosition);
  if (position === undefined) {
    throw new Error(`KurrentDB returned ${event.streamId}@${event.revision} without a log position (older servers omit it on stream reads)`);
  }
  return new StoredEvent(event.streamId, event.type, event.revision, position, event.isJson ? event.data : decodeJson(event.data),
    toMetadata(event.metadata), event.created, event.id);
}

// Older servers report "unknown" as the largest unsigned 64-bit number.
const unknownPosition = 2n ** 64n - 1n;

function knownPosition(position: bigint | undefined): bigint | undefined {
  return position === undefined || position === unknownPosition ? undefined : position;
}

export function toMetadata(metadata: unknown): Record<string, unknown> {
  if (metadata instanceof Uint8Array) return metadata.length === 0 ? {} : (decodeJson(metadata) as Record<string, unknown>);
  if (typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)) return metadata as Record<string, unknown>;
  return {};
}

function decodeJson(bytes: unknown): unknown {
  if (!(bytes instanceof Uint8Array)) return bytes;
  return JSON.parse(new TextDecoder().decode(bytes)) as unknown;
}
