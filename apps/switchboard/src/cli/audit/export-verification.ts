import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import { ChainVerifier } from '@switchboard/eventstore';
import type { ChainFindingKind } from '@switchboard/eventstore';
import type { AuditExportFormat } from '@switchboard/contracts';
import { ProgressBar } from '../progress.js';
import { CSV_COLUMNS, ExportManifest, ExportedEvent, eventOfCsvRow, recordedEventOf } from './export-format.js';
import { manifestFindings } from './manifest-check.js';
import type { FileTally } from './manifest-check.js';

/**
 * What is wrong with an export: a broken chain link (as `audit verify` reports for a store), a
 * disagreement with the manifest (`mismatch`: an event cut from a stream's end, a stream left out),
 * no manifest at the end (`incomplete`: the file was cut), or a line that is no exported event
 * (`unreadable`).
 */
export type FileFindingKind = ChainFindingKind | 'mismatch' | 'incomplete' | 'unreadable';

export interface FileFinding {
  kind: FileFindingKind;
  /** The stream it concerns, or `-` for the file as a whole. */
  stream: string;
  revision: number | null;
  position: number | null;
  /** The line (JSON Lines) or record (CSV) of the file, when one is to blame. */
  line: number | null;
  expected: string;
  found: string;
}

export interface FileVerification {
  file: string;
  format: AuditExportFormat;
  events: number;
  streams: number;
  chainedStreams: number;
  unchainedStreams: number;
  /** SHA-256 of the manifest as written in the file: compare it with the one recorded when the export was made. */
  manifestSha256: string | null;
  findings: FileFinding[];
  seconds: number;
}

/** One item of the file: an event, the manifest, or a line that is neither. */
type Item = { line: number; event: unknown } | { line: number; manifest: unknown; text: string } | { line: number; unreadable: string };

/**
 * `audit verify --file`: reads an export (JSON Lines or CSV, told apart by its first character)
 * once, streaming: re-hashes every event and checks each stream's links (the check `audit verify`
 * runs on a store, starting from each stream's first exported event), then compares what the file
 * holds with its manifest: counts, positions, and each stream's first and last revision, start
 * hash and head. A removed last event, a left-out stream or a cut file is found there.
 */
export async function verifyExportFile(file: string): Promise<FileVerification> {
  const started = performance.now();
  const format = await formatOf(file);
  const verifier = new ChainVerifier({ start: 'first-event' });
  const findings: FileFinding[] = [];
  const tally: FileTally = { events: 0, stores: new Map(), streams: new Map() };
  const progress = new ProgressBar('verify', 'events');
  let manifest: { value: ExportManifest; text: string; line: number } | undefined;
  for await (const item of format === 'csv' ? csvItems(file) : jsonLines(file)) {
    if (manifest !== undefined) {
      findings.push(fileFinding('unreadable', item.line, 'nothing after the manifest', 'more lines'));
      break;
    }
    if ('unreadable' in item) {
      findings.push(fileFinding('unreadable', item.line, 'an exported event or the manifest', item.unreadable));
      continue;
    }
    if ('manifest' in item) {
      const parsed = ExportManifest.safeParse(item.manifest);
      if (parsed.success) manifest = { value: parsed.data, text: item.text, line: item.line };
      else findings.push(fileFinding('unreadable', item.line, 'a manifest', parsed.error.issues[0]?.message ?? 'invalid'));
      continue;
    }
    const parsed = ExportedEvent.safeParse(item.event);
    if (!parsed.success) {
      findings.push(fileFinding('unreadable', item.line, 'an exported event', `${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`));
      continue;
    }
    count(tally, parsed.data);
    for (const f of verifier.add(recordedEventOf(parsed.data))) findings.push(chainFinding(f));
    if (tally.events % 1000 === 0) progress.update(tally.events, undefined);
  }
  for (const f of verifier.end()) findings.push(chainFinding(f));
  progress.end();
  const summaries = [...verifier.summaries()];
  if (manifest === undefined) findings.push(fileFinding('incomplete', null, 'the manifest as the last line', 'none: the file was cut or is not a whole export'));
  else findings.push(...manifestFindings(manifest.value, tally, summaries));
  const chained = summaries.filter((s) => s.chainedFrom !== undefined).length;
  return {
    file, format, events: tally.events, streams: summaries.length, chainedStreams: chained, unchainedStreams: summaries.length - chained,
    manifestSha256: manifest === undefined ? null : createHash('sha256').update(manifest.text).digest('hex'),
    findings, seconds: (performance.now() - started) / 1000,
  };
}

function count(tally: FileTally, event: ExportedEvent): void {
  tally.events += 1;
  const store = tally.stores.get(event.service);
  if (store === undefined) tally.stores.set(event.service, { events: 1, firstPosition: event.position, lastPosition: event.position });
  else Object.assign(store, { events: store.events + 1, lastPosition: event.position });
  const stream = tally.streams.get(event.stream);
  if (stream === undefined) tally.streams.set(event.stream, { events: 1, firstRevision: event.revision, lastRevision: event.revision });
  else Object.assign(stream, { events: stream.events + 1, lastRevision: event.revision });
}

/** CSV files start with their header row (`record,…`); JSON Lines with `{`. */
async function formatOf(file: string): Promise<AuditExportFormat> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(1), 0, 1, 0);
    return bytesRead === 1 && buffer.toString('utf8') === '{' ? 'jsonl' : 'csv';
  } finally {
    await handle.close();
  }
}

async function* jsonLines(file: string): AsyncGenerator<Item> {
  let line = 0;
  for await (const text of createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })) {
    line += 1;
    if (text === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      yield { line, unreadable: `not JSON: ${text.slice(0, 40)}${text.length > 40 ? '…' : ''}` };
      continue;
    }
    const manifest = typeof value === 'object' && value !== null && 'manifest' in value ? (value as { manifest: unknown }).manifest : undefined;
    // The manifest's hash is over its own JSON text, as the export wrote it after `{"manifest":`.
    yield manifest === undefined ? { line, event: value } : { line, manifest, text: text.slice('{"manifest":'.length, -1) };
  }
}

async function* csvItems(file: string): AsyncGenerator<Item> {
  const parser = createReadStream(file).pipe(parse({ columns: true, relax_column_count: false, skip_empty_lines: true, info: true }));
  let headerChecked = false;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { records: number; lines: number } }>) {
      if (!headerChecked) {
        headerChecked = true;
        const columns = Object.keys(record).join(',');
        if (columns !== CSV_COLUMNS.join(',')) yield { line: 1, unreadable: `columns ${columns}, expected ${CSV_COLUMNS.join(',')}` };
      }
      const line = info.lines;
      if (record['record'] === 'manifest') yield { line, manifest: parseJson(record['data']), text: record['data'] ?? '' };
      else if (record['record'] === 'event') yield eventItem(line, record);
      else yield { line, unreadable: `record "${record['record']}"` };
    }
  } catch (error) {
    // A cut or edited file can end inside a quoted field: csv-parse says where.
    yield { line: -1, unreadable: error instanceof Error ? error.message : String(error) };
  }
}

function eventItem(line: number, record: Record<string, string>): Item {
  try {
    return { line, event: eventOfCsvRow(record) };
  } catch {
    return { line, unreadable: 'data or metadata is not JSON' };
  }
}

function parseJson(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return undefined;
  }
}

function fileFinding(kind: FileFindingKind, line: number | null, expected: string, found: string): FileFinding {
  return { kind, stream: '-', revision: null, position: null, line: line === -1 ? null : line, expected, found };
}

function chainFinding(f: { kind: ChainFindingKind; stream: string; revision: bigint; position: bigint; expected: string; found: string }): FileFinding {
  return { kind: f.kind, stream: f.stream, revision: Number(f.revision), position: Number(f.position), line: null, expected: f.expected, found: f.found };
}
