import { z } from 'zod';
import { GENESIS_HASH } from '@switchboard/eventstore';
import type { RecordedEvent } from '@switchboard/eventstore';
import type { StoredFact } from './fact-sources.js';

/**
 * The audit export's file format (version 1): every event of an account, one per line (JSON Lines)
 * or row (CSV), in log order, then a manifest that pins what the file must hold, so that a third
 * party can check it later (`switchboard audit verify --file`) or against the live stores.
 *
 * Glossary:
 * - head: the `hash` of a stream's last exported event; a removed or rewritten tail changes it.
 * - start hash: the `prevHash` of a stream's first exported event (genesis unless the export starts
 *   in the middle of the stream, with `--from`).
 */
export const EXPORT_FORMAT = 'switchboard-audit-export';

/** One recorded event, whole: where it is stored (store, stream, revision, log position) and what it says. */
export const ExportedEvent = z.object({
  /** The service whose store holds it; `all` for a KurrentDB log every service shares (positions are per store). */
  service: z.string().min(1),
  stream: z.string().min(1),
  revision: z.number().int().min(0),
  position: z.number().int().min(0),
  id: z.string().min(1),
  type: z.string().min(1),
  recordedAt: z.iso.datetime(),
  data: z.unknown(),
  /** Including `prevHash` and `hash`, the event's link in its stream's hash chain. */
  metadata: z.record(z.string(), z.unknown()),
});
export type ExportedEvent = z.infer<typeof ExportedEvent>;

const StreamHead = z.object({
  service: z.string(),
  events: z.number().int().min(1),
  firstRevision: z.number().int().min(0),
  lastRevision: z.number().int().min(0),
  /** Null for a stream written before hash chains (its events carry none). */
  startHash: z.string().nullable(),
  hash: z.string().nullable(),
});
export type StreamHead = z.infer<typeof StreamHead>;

const StoreRange = z.object({
  service: z.string(),
  events: z.number().int().min(1),
  firstPosition: z.number().int().min(0),
  lastPosition: z.number().int().min(0),
});
export type StoreRange = z.infer<typeof StoreRange>;

/** What the file must hold: counts, the first and last log position per store, and every stream's chain ends. */
export const ExportManifest = z.object({
  format: z.literal(EXPORT_FORMAT),
  version: z.literal(1),
  accountId: z.string(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  exportedAt: z.string(),
  events: z.number().int().min(0),
  streams: z.number().int().min(0),
  stores: z.array(StoreRange),
  heads: z.record(z.string(), StreamHead),
});
export type ExportManifest = z.infer<typeof ExportManifest>;

/** The CSV columns: the event's place and type, its request and chain links for reading, data and metadata as JSON. */
export const CSV_COLUMNS = [
  'record', 'service', 'stream', 'revision', 'position', 'id', 'type', 'recordedAt', 'correlationId', 'causationId', 'prevHash', 'hash', 'data', 'metadata',
] as const;

export function exportedEvent({ service, event }: StoredFact): ExportedEvent {
  return {
    service,
    stream: event.stream,
    revision: Number(event.revision),
    position: Number(event.position),
    id: event.id,
    type: event.type,
    recordedAt: event.recordedAt.toISOString(),
    data: event.data,
    metadata: event.metadata,
  };
}

/** An exported event as the chain check reads it. */
export function recordedEventOf(row: ExportedEvent): RecordedEvent {
  return { ...row, revision: BigInt(row.revision), position: BigInt(row.position), recordedAt: new Date(row.recordedAt) };
}

/** A CSV row: `record` is `event`; the chain links and request ids repeat metadata fields, for reading. */
export function csvEventRow(event: ExportedEvent): string[] {
  const m = event.metadata;
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return [
    'event', event.service, event.stream, String(event.revision), String(event.position), event.id, event.type, event.recordedAt,
    text(m['correlationId']), text(m['causationId']), text(m['prevHash']), text(m['hash']), JSON.stringify(event.data ?? null), JSON.stringify(m),
  ];
}

/**
 * The last CSV row, in pieces: `record` is `manifest`, the manifest's JSON in the `data` column. By
 * hand, not through csv-stringify: the field is written as the manifest's JSON comes, a piece at a
 * time, quoted as RFC 4180 quotes (every `"` doubled inside `"…"`).
 */
export const CSV_MANIFEST_ROW = {
  start: `manifest${','.repeat(CSV_COLUMNS.indexOf('data'))}"`,
  piece: (json: string): string => json.replaceAll('"', '""'),
  end: `"${','.repeat(CSV_COLUMNS.length - 1 - CSV_COLUMNS.indexOf('data'))}\n`,
};

/** A CSV event row read back (columns by name); the chain is checked on `data` and `metadata`. */
export function eventOfCsvRow(row: Record<string, string>): unknown {
  return {
    service: row['service'], stream: row['stream'], revision: Number(row['revision']), position: Number(row['position']), id: row['id'],
    type: row['type'], recordedAt: row['recordedAt'], data: JSON.parse(row['data'] ?? 'null'), metadata: JSON.parse(row['metadata'] ?? 'null'),
  };
}

/** Gathers the manifest while the events are written: one entry per stream and per store (the genesis hash shared), nothing per event. */
export class ManifestBuilder {
  #events = 0;
  readonly #stores = new Map<string, StoreRange>();
  readonly #heads = new Map<string, StreamHead>();

  add(event: ExportedEvent): void {
    this.#events += 1;
    const { prevHash, hash } = event.metadata;
    const store = this.#stores.get(event.service);
    if (store === undefined) this.#stores.set(event.service, { service: event.service, events: 1, firstPosition: event.position, lastPosition: event.position });
    else {
      store.events += 1;
      store.lastPosition = event.position;
    }
    const link = typeof prevHash === 'string' ? (prevHash === GENESIS_HASH ? GENESIS_HASH : prevHash) : null;
    const head = this.#heads.get(event.stream);
    if (head === undefined) {
      this.#heads.set(event.stream, { service: event.service, events: 1, firstRevision: event.revision, lastRevision: event.revision, startHash: link, hash: typeof hash === 'string' ? hash : null });
      return;
    }
    head.events += 1;
    head.lastRevision = event.revision;
    head.hash = typeof hash === 'string' ? hash : null;
    // A stream written before chains and appended to after: its chain starts at its first chained event.
    head.startHash ??= link;
  }

  /** The manifest without its heads: what the CLI prints. */
  summary(scope: ManifestScope): Omit<ExportManifest, 'heads'> {
    return {
      format: EXPORT_FORMAT,
      version: 1,
      accountId: scope.accountId,
      from: scope.from?.toISOString() ?? null,
      to: scope.to?.toISOString() ?? null,
      exportedAt: scope.exportedAt.toISOString(),
      events: this.#events,
      streams: this.#heads.size,
      stores: [...this.#stores.values()],
    };
  }

  /**
   * The manifest's JSON text in pieces of 1,000 heads: a large export's manifest (about 300 bytes
   * per stream) is never built as one string.
   */
  *json(scope: ManifestScope): Generator<string> {
    const opening = JSON.stringify({ ...this.summary(scope), heads: {} });
    let piece = opening.slice(0, -'}}'.length);
    let count = 0;
    for (const [stream, head] of this.#heads) {
      piece += `${count === 0 ? '' : ','}${JSON.stringify(stream)}:${JSON.stringify(head)}`;
      count += 1;
      if (count % 1_000 === 0) {
        yield piece;
        piece = '';
      }
    }
    yield `${piece}}}`;
  }
}

export interface ManifestScope {
  accountId: string;
  from: Date | undefined;
  to: Date | undefined;
  exportedAt: Date;
}
