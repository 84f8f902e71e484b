import { z } from 'zod';

/**
 * Domain event: a past-tense fact with a schema version, `{ type, version, data }`.
 * Data objects strip unknown keys: a reader tolerates fields it does not know yet, while a
 * changed meaning gets a new version (registered next to the old one, never replacing it).
 */
export function defineEvent<const T extends string, const V extends number, D extends z.ZodRawShape>(
  type: T,
  version: V,
  data: D,
) {
  return z.object({ type: z.literal(type), version: z.literal(version), data: z.object(data) });
}

/** The shape every event schema has; what parsers and registries accept. */
export type EventSchema = z.ZodObject<{
  type: z.ZodLiteral<string>;
  version: z.ZodLiteral<number>;
  data: z.ZodType;
}>;

/** An event as read from a store, before validation. */
export interface RawEvent {
  readonly type: string;
  readonly version: number;
  readonly data: unknown;
}

/** `SessionCreated@1`: how events are named in logs, docs and registry keys. */
export function eventKey(type: string, version: number): string {
  return `${type}@${version}`;
}
