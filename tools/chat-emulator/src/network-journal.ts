import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FILE_MODE, readTextIfAny, writeAtomically } from './data-files.js';
import type { ContactSettings, LinkedDevice } from './model.js';

/** The network's records as `network.json` holds them (the format older data directories have). */
export interface NetworkSnapshot {
  devices: LinkedDevice[];
  deviceCounters: Record<string, number>;
  contacts: Record<string, ContactSettings>;
}

/**
 * One record's whole new value: a line of the journal. A line carries the record, not a delta, so
 * replaying it again (after a crash between a compaction's rename and the journal's truncation)
 * changes nothing.
 */
export type NetworkChange =
  | { kind: 'device'; phone: string; device: LinkedDevice | null }
  | { kind: 'deviceCounter'; phone: string; lastDeviceId: number }
  | { kind: 'contact'; phone: string; settings: ContactSettings };

const SNAPSHOT = 'network.json';
const JOURNAL = 'network.jsonl';
/** Below this the journal is left to grow: compacting a small network often saves nothing. */
const MIN_COMPACTION_BYTES = 1024 * 1024;

const EMPTY: NetworkSnapshot = { devices: [], deviceCounters: {}, contacts: {} };

/** The snapshot with the changes applied in order, each record's last value winning. */
export const replay = (snapshot: NetworkSnapshot, changes: readonly NetworkChange[]): NetworkSnapshot => {
  const devices = new Map(snapshot.devices.map((device) => [device.phone, device]));
  const deviceCounters = { ...snapshot.deviceCounters };
  const contacts = { ...snapshot.contacts };
  for (const change of changes) {
    if (change.kind === 'device') {
      if (change.device) devices.set(change.phone, change.device);
      else devices.delete(change.phone);
    } else if (change.kind === 'deviceCounter') deviceCounters[change.phone] = change.lastDeviceId;
    else contacts[change.phone] = change.settings;
  }
  return { devices: [...devices.values()], deviceCounters, contacts };
};

/**
 * The complete lines of a journal. Lines are only ever appended, so only its end can be cut short
 * (the process killed in the middle of a write): a last line without its newline never happened.
 */
const completeLines = (text: string): NetworkChange[] =>
  text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as NetworkChange);

/**
 * Devices, device counters and contact settings on disk: a snapshot (`network.json`) and a journal
 * of the changes since (`network.jsonl`, one JSON line per changed record). Rewriting the snapshot
 * on every change cost time and garbage in proportion to every device held (a link at 8,000
 * devices serialized ~50 MB); a change now appends its own record only. The snapshot is rewritten
 * once the journal outgrows it, so that work stays proportional to what changed, and the journal
 * to at most about the snapshot's size.
 */
export class NetworkJournal {
  private snapshotBytes = 0;
  private journalBytes = 0;

  /** `current` is the network's live state, which a compaction writes as the new snapshot. */
  constructor(
    private readonly dir: string,
    private readonly current: () => NetworkSnapshot,
  ) {}

  /**
   * The saved network: the snapshot with the journal replayed on top, both folded into a new
   * snapshot so the journal starts empty (and a torn last line is gone before anything follows it).
   */
  open(): NetworkSnapshot {
    const snapshotText = readTextIfAny(join(this.dir, SNAPSHOT));
    const journalText = readTextIfAny(join(this.dir, JOURNAL)) ?? '';
    const saved = snapshotText === undefined ? EMPTY : (JSON.parse(snapshotText) as NetworkSnapshot);
    const network = replay(saved, completeLines(journalText));
    if (snapshotText === undefined || journalText !== '') this.compact(network);
    else this.snapshotBytes = Buffer.byteLength(snapshotText);
    return network;
  }

  /** One write for all of them: a turn's changes reach the file together, as its snapshot did. */
  append(changes: readonly NetworkChange[]): void {
    const lines = changes.map((change) => JSON.stringify(change) + '\n').join('');
    appendFileSync(join(this.dir, JOURNAL), lines, { mode: FILE_MODE });
    this.journalBytes += Buffer.byteLength(lines);
    if (this.journalBytes > Math.max(this.snapshotBytes, MIN_COMPACTION_BYTES)) this.compact(this.current());
  }

  /** Writes `network` as the snapshot (atomically: temp file + rename), then empties the journal. */
  private compact(network: NetworkSnapshot): void {
    const text = JSON.stringify(network);
    writeAtomically(join(this.dir, SNAPSHOT), text);
    writeFileSync(join(this.dir, JOURNAL), '', { mode: FILE_MODE });
    this.snapshotBytes = Buffer.byteLength(text);
    this.journalBytes = 0;
  }
}
