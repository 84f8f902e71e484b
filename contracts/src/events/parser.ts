import type { z } from 'zod';
import { eventKey } from './define.js';
import type { EventSchema, RawEvent } from './define.js';

export type EventParseFailure = 'unknown_type' | 'unknown_version' | 'invalid_data';

/** An event read from a store that this code cannot understand: never guess, stop and report. */
export class EventParseError extends Error {
  override readonly name = 'EventParseError';
  constructor(
    readonly reason: EventParseFailure,
    readonly eventType: string,
    readonly eventVersion: number,
    readonly issues: readonly z.core.$ZodIssue[] = [],
  ) {
    super(`Cannot read event ${eventKey(eventType, eventVersion)}: ${reason.replace('_', ' ')}`);
  }
}

export type EventParseResult<E> = { ok: true; event: E } | { ok: false; error: EventParseError };

export interface EventParser<E> {
  /** Validates `data` against the schema registered for exactly this type and version. */
  safeParse(raw: RawEvent): EventParseResult<E>;
  /** Like `safeParse`, but throws the EventParseError. */
  parse(raw: RawEvent): E;
  /**
   * An event this service's own store recorded, read back without validating its data: its type
   * and version must be registered (an EventParseError otherwise, as with `parse`), and its data
   * is taken as the writer's contract typed it. Event schemas have no defaults or transforms, so
   * `parse` would answer the same fields. For read models, which apply every event of a category
   * and can be rebuilt; a fold that decides commands parses (a decision taken on a malformed fact
   * would be written into new facts).
   */
  decode(raw: RawEvent): E;
  /** Every registered `Type@version`. */
  readonly keys: readonly string[];
}

/**
 * What `decode` answers: a class, as the store's events are (see `StoredEvent` in the eventstore
 * library), since a read model holds the events of a batch until its end.
 */
class DecodedEvent {
  constructor(
    readonly type: string,
    readonly version: number,
    readonly data: unknown,
  ) {}
}

/** Builds a parser over a list of event schemas, dispatching on `type` + `version`. */
export function createEventParser<const S extends readonly EventSchema[]>(schemas: S): EventParser<z.output<S[number]>> {
  type E = z.output<S[number]>;
  const byKey = new Map<string, EventSchema>();
  const types = new Set<string>();
  for (const schema of schemas) {
    const key = eventKey(schema.shape.type.value, schema.shape.version.value);
    if (byKey.has(key)) throw new Error(`Event ${key} is registered twice`);
    byKey.set(key, schema);
    types.add(schema.shape.type.value);
  }
  /** The schema registered for exactly this type and version, or why there is none. */
  const schemaOf = (raw: RawEvent): EventSchema | EventParseError =>
    byKey.get(eventKey(raw.type, raw.version)) ?? new EventParseError(types.has(raw.type) ? 'unknown_version' : 'unknown_type', raw.type, raw.version);
  const safeParse = (raw: RawEvent): EventParseResult<E> => {
    const schema = schemaOf(raw);
    if (schema instanceof EventParseError) return { ok: false, error: schema };
    const result = schema.safeParse({ type: raw.type, version: raw.version, data: raw.data });
    if (result.success) return { ok: true, event: result.data as E };
    return { ok: false, error: new EventParseError('invalid_data', raw.type, raw.version, result.error.issues) };
  };
  const parse = (raw: RawEvent): E => {
    const result = safeParse(raw);
    if (result.ok) return result.event;
    throw result.error;
  };
  const decode = (raw: RawEvent): E => {
    const schema = schemaOf(raw);
    if (schema instanceof EventParseError) throw schema;
    if (typeof raw.data !== 'object' || raw.data === null || Array.isArray(raw.data)) throw new EventParseError('invalid_data', raw.type, raw.version);
    return new DecodedEvent(raw.type, raw.version, raw.data) as E;
  };
  return { safeParse, parse, decode, keys: [...byKey.keys()] };
}
