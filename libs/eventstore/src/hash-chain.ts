import { hash } from 'node:crypto';
import { canonicalJson, canonicalJsonWithout } from './canonical-json.js';
import type { NewEvent } from './event-store.js';

/**
 * Tamper evidence: every appended event carries `prevHash` (the hash of the event before it in
 * its stream) and `hash` (its own) in its metadata. Editing, removing, inserting or reordering an
 * event afterwards breaks a link that `ChainCheck` finds; only rewriting a stream's whole tail
 * from the change on goes unseen, which the chain heads an export records (or any copy of a
 * head hash kept elsewhere) rule out.
 *
 * Glossary:
 * - genesis: the `prevHash` of a stream's first chained event (revision 0, or the first event
 *   appended after an upgrade to a stream written before chains existed).
 * - head: the hash the stream's next event will link to: its last event's `hash`, else genesis.
 */

/** The `prevHash` a stream's chain starts from. */
export const GENESIS_HASH = '0'.repeat(64);

/** The metadata keys the chain adds; an event's hash covers all of its metadata but these. */
export const CHAIN_KEYS: ReadonlySet<string> = new Set(['prevHash', 'hash']);

/** What an event's hash covers, as appended or as read back. */
export interface HashedEvent {
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
}

/**
 * SHA-256 (lowercase hex) of the canonical JSON of
 * `{ "data", "metadata" (without prevHash and hash), "prevHash", "type", "version" }`, where
 * `version` is the schema version the event is read as: `metadata.schemaVersion`, 1 when absent
 * (as services read it). Anyone can recompute it from an exported event with a JCS library.
 */
export function eventHash(prevHash: string, event: HashedEvent): string {
  const text = `{"data":${canonicalJson(event.data)},"metadata":${canonicalJsonWithout(event.metadata, CHAIN_KEYS)}`
    + `,"prevHash":${JSON.stringify(prevHash)},"type":${JSON.stringify(event.type)},"version":${canonicalJson(schemaVersionOf(event.metadata))}}`;
  return hash('sha256', text, 'hex');
}

/**
 * The events with their chain links, the first linked to `prevHash` (the stream's head), and the
 * new head. Data is hashed as it will be stored (`undefined` as null).
 */
export function chainEvents(prevHash: string, events: readonly NewEvent[]): { chained: NewEvent[]; head: string } {
  let head = prevHash;
  const chained = events.map((event): NewEvent => {
    const metadata = event.metadata ?? {};
    const hash = eventHash(head, { type: event.type, data: event.data ?? null, metadata });
    const linked = { ...event, metadata: { ...metadata, prevHash: head, hash } };
    head = hash;
    return linked;
  });
  return { chained, head };
}

/**
 * The head a stream's next event links to, from its last event's stored `hash`: genesis when the
 * stream is new or was written before chains (its last event has no hash).
 */
export function chainHeadFrom(lastHash: unknown): string {
  return typeof lastHash === 'string' ? lastHash : GENESIS_HASH;
}

function schemaVersionOf(metadata: Record<string, unknown>): number {
  const version = metadata['schemaVersion'];
  return typeof version === 'number' ? version : 1;
}
