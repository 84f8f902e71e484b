import type { ChainFinding } from '@switchboard/eventstore';
import { count, table } from '../format.js';
import type { CliOutput } from '../run.js';
import type { FileVerification } from './export-verification.js';
import type { StoreVerification } from './verify-stores.js';

/** What `audit verify` prints, and exit code 1 on any finding. */
export function verifyOutput(results: readonly StoreVerification[]): CliOutput {
  const findings = results.flatMap((r) => r.findings.map((finding) => ({ service: r.service, ...finding })));
  const totals = {
    events: sum(results, (r) => r.events),
    streams: sum(results, (r) => r.streams),
    chainedStreams: sum(results, (r) => r.chainedStreams),
    unchainedStreams: sum(results, (r) => r.unchainedStreams),
    findings: findings.length,
  };
  const json = {
    ok: findings.length === 0,
    totals,
    stores: results.map(({ findings: found, seconds, ...store }) => ({ ...store, findings: found.length, eventsPerSecond: rate(store.events, seconds) })),
    findings: findings.map((f) => ({ ...f, revision: Number(f.revision), position: Number(f.position) })),
  };
  const parts = [storeTable(results)];
  if (findings.length > 0) parts.push(findingTable(findings));
  parts.push(summaryLines(totals).join('\n'));
  return { text: parts.join('\n\n'), json, exitCode: findings.length > 0 ? 1 : 0 };
}

function storeTable(results: readonly StoreVerification[]): string {
  const rows = results.map((r) => (r.exists
    ? [r.service, r.store, count(r.events), count(r.streams), count(r.chainedStreams), count(r.unchainedStreams), count(r.findings.length), count(rate(r.events, r.seconds))]
    : [r.service, `${r.store} (none yet)`, '-', '-', '-', '-', '-', '-']));
  return table(['SERVICE', 'STORE', 'EVENTS', 'STREAMS', 'CHAINED', 'UNCHAINED', 'FINDINGS', 'EVENTS/S'], rows);
}

function findingTable(findings: readonly (ChainFinding & { service: string })[]): string {
  const rows = findings.map((f) => [f.kind, f.service, f.stream, String(f.revision), String(f.position), f.expected, f.found]);
  return table(['FINDING', 'SERVICE', 'STREAM', 'REVISION', 'POSITION', 'EXPECTED', 'FOUND'], rows);
}

function summaryLines(totals: { events: number; chainedStreams: number; unchainedStreams: number; findings: number }): string[] {
  const lines = totals.findings > 0
    ? [`${count(totals.findings)} finding${totals.findings === 1 ? '' : 's'}: events were altered, removed, inserted or reordered outside Switchboard.`]
    : [`No findings: ${count(totals.chainedStreams)} chained stream${totals.chainedStreams === 1 ? '' : 's'} intact (${count(totals.events)} events read).`];
  if (totals.unchainedStreams > 0) {
    lines.push(`${count(totals.unchainedStreams)} unchained stream${totals.unchainedStreams === 1 ? '' : 's'}: written before hash chains, not verifiable (not a finding).`);
  }
  return lines;
}

/** What `audit verify --file` prints, and exit code 1 on any finding. */
export function fileVerifyOutput(result: FileVerification): CliOutput {
  const { findings, seconds, ...file } = result;
  const json = { ok: findings.length === 0, ...file, eventsPerSecond: rate(file.events, seconds), findings };
  const summary = table(['FILE', 'FORMAT', 'EVENTS', 'STREAMS', 'CHAINED', 'UNCHAINED', 'FINDINGS', 'EVENTS/S'], [[
    file.file, file.format, count(file.events), count(file.streams), count(file.chainedStreams), count(file.unchainedStreams), count(findings.length), count(rate(file.events, seconds)),
  ]]);
  const parts = [summary];
  if (findings.length > 0) {
    const rows = findings.map((f) => [f.kind, f.stream, orDash(f.revision), orDash(f.position), orDash(f.line), f.expected, f.found]);
    parts.push(table(['FINDING', 'STREAM', 'REVISION', 'POSITION', 'LINE', 'EXPECTED', 'FOUND'], rows));
  }
  const lines = findings.length > 0
    ? [`${count(findings.length)} finding${findings.length === 1 ? '' : 's'}: the export was altered, cut, or does not match its manifest.`]
    : [`No findings: ${count(file.events)} events in ${count(file.chainedStreams)} chained stream${file.chainedStreams === 1 ? '' : 's'} match the manifest.`];
  if (file.unchainedStreams > 0) lines.push(`${count(file.unchainedStreams)} unchained stream${file.unchainedStreams === 1 ? '' : 's'}: written before hash chains, counted against the manifest only.`);
  if (file.manifestSha256 !== null) lines.push(`Manifest SHA-256 ${file.manifestSha256}: it must equal the one recorded when the export was made.`);
  parts.push(lines.join('\n'));
  return { text: parts.join('\n\n'), json, exitCode: findings.length > 0 ? 1 : 0 };
}

const orDash = (value: number | null): string => (value === null ? '-' : String(value));
const sum = <T>(items: readonly T[], of: (item: T) => number): number => items.reduce((total, item) => total + of(item), 0);
const rate = (events: number, seconds: number): number => (seconds > 0 ? Math.round(events / seconds) : 0);
