import type { StreamChainSummary } from '@switchboard/eventstore';
import type { ExportManifest } from './export-format.js';
import type { FileFinding } from './export-verification.js';

/** What an export file was found to hold, per store and per stream (counted while it was read). */
export interface FileTally {
  events: number;
  stores: Map<string, { events: number; firstPosition: number; lastPosition: number }>;
  streams: Map<string, { events: number; firstRevision: number; lastRevision: number }>;
}

/**
 * Where the file disagrees with its manifest (`mismatch` findings): the total, each store's count
 * and first and last position, and for each stream its count, first and last revision, the hash
 * its first event links to and its head. The chain check alone cannot see a stream's last event
 * cut from the file, nor a stream left out: the manifest's heads do.
 */
export function manifestFindings(manifest: ExportManifest, tally: FileTally, summaries: readonly StreamChainSummary[]): FileFinding[] {
  const findings: FileFinding[] = [];
  const mismatch = (stream: string, revision: number | null, what: string, expected: unknown, found: unknown) => {
    if (expected !== found) findings.push({ kind: 'mismatch', stream, revision, position: null, line: null, expected: `${what} ${text(expected)}`, found: `${what} ${text(found)}` });
  };
  mismatch('-', null, 'events', manifest.events, tally.events);
  for (const store of manifest.stores) {
    const found = tally.stores.get(store.service);
    const where = `${store.service} store:`;
    mismatch('-', null, `${where} events`, store.events, found?.events ?? 0);
    mismatch('-', null, `${where} first position`, store.firstPosition, found?.firstPosition);
    mismatch('-', null, `${where} last position`, store.lastPosition, found?.lastPosition);
  }
  const chains = new Map(summaries.map((s) => [s.stream, s]));
  for (const [stream, head] of Object.entries(manifest.heads)) {
    const found = tally.streams.get(stream);
    if (found === undefined) {
      mismatch(stream, head.firstRevision, 'events', head.events, 0);
      continue;
    }
    const chain = chains.get(stream);
    mismatch(stream, null, 'events', head.events, found.events);
    mismatch(stream, head.firstRevision, 'first revision', head.firstRevision, found.firstRevision);
    mismatch(stream, head.lastRevision, 'last revision', head.lastRevision, found.lastRevision);
    mismatch(stream, head.firstRevision, 'start hash', head.startHash, chain?.startHash ?? null);
    mismatch(stream, head.lastRevision, 'head', head.hash, chain?.head ?? null);
  }
  for (const stream of tally.streams.keys()) {
    if (!(stream in manifest.heads)) mismatch(stream, null, 'stream', 'not in the manifest', 'in the file');
  }
  return findings;
}

const text = (value: unknown): string => (value === undefined || value === null ? 'none' : String(value));
