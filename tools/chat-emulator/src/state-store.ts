import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BufferJSON } from '@whiskeysockets/baileys';
import { DIR_MODE, FILE_MODE, readTextIfAny, writeAtomically } from './data-files.js';
import type { ReceivedMessage } from './model.js';
import { NetworkJournal } from './network-journal.js';
import type { NetworkChange, NetworkSnapshot } from './network-journal.js';
import type { PeerSnapshot } from './signal-peer.js';

/** The network's own keys: they must survive restarts or clients stop trusting it. */
export interface IdentitySnapshot {
  rootPrivate: string;
  rootPublic: string;
  staticPrivate: string;
  staticPublic: string;
  mediaKeyPem: string;
  mediaCertPem: string;
}

/**
 * Files under the data directory: JSON documents written atomically (temp file + rename) at the
 * end of the event-loop turn that changed them, the network's journal (a turn's changed records in
 * one append), and one append-only JSON-lines inbox per contact. The network must not forget a
 * device it just linked: the in-process emulator dies with a SIGKILLed Switchboard, and on restart
 * that device has to log in again as on the real network. Writing once per turn (not on a timer)
 * keeps that window to the turn itself.
 */
export class StateStore {
  private readonly dirty = new Map<string, () => string>();
  /** Network records changed this turn, by record: each is saved once, as it is when the turn ends. */
  private readonly networkChanges = new Map<string, () => NetworkChange>();
  private network: NetworkJournal | undefined;
  private timer: NodeJS.Immediate | undefined;

  constructor(private readonly dir: string) {
    for (const sub of ['peers', 'inbox', 'media']) mkdirSync(join(dir, sub), { recursive: true, mode: DIR_MODE });
  }

  loadIdentity(): IdentitySnapshot | undefined {
    return this.readJson<IdentitySnapshot>('identity.json');
  }

  saveIdentity(identity: IdentitySnapshot): void {
    this.writeNow('identity.json', JSON.stringify(identity, null, 2));
  }

  /** The saved devices, device counters and contacts; `current` is the live state, for compactions. */
  openNetwork(current: () => NetworkSnapshot): NetworkSnapshot {
    this.network = new NetworkJournal(this.dir, current);
    return this.network.open();
  }

  /** `record` names one device, device counter or contact (`device:<phone>`, ...). */
  saveNetworkChange(record: string, produce: () => NetworkChange): void {
    this.networkChanges.set(record, produce);
    this.scheduleFlush();
  }

  loadPeer(pn: string): PeerSnapshot | undefined {
    const text = this.readText(join('peers', `${pn}.json`));
    return text === undefined ? undefined : (JSON.parse(text, BufferJSON.reviver) as PeerSnapshot);
  }

  savePeer(pn: string, produce: () => PeerSnapshot): void {
    this.markDirty(join('peers', `${pn}.json`), () => JSON.stringify(produce(), BufferJSON.replacer));
  }

  loadInbox(pn: string, limit: number): ReceivedMessage[] {
    const text = this.readText(join('inbox', `${pn}.jsonl`));
    if (!text) return [];
    return text.trimEnd().split('\n').slice(-limit).map((line) => JSON.parse(line) as ReceivedMessage);
  }

  appendInbox(pn: string, message: ReceivedMessage): void {
    appendFileSync(join(this.dir, 'inbox', `${pn}.jsonl`), JSON.stringify(message) + '\n', { mode: FILE_MODE });
  }

  saveMedia(token: string, bytes: Buffer): void {
    writeFileSync(join(this.dir, 'media', token), bytes, { mode: FILE_MODE });
  }

  loadMedia(token: string): Buffer | undefined {
    const path = join(this.dir, 'media', token);
    return existsSync(path) ? readFileSync(path) : undefined;
  }

  flush(): void {
    if (this.timer) clearImmediate(this.timer);
    this.timer = undefined;
    const pending = [...this.dirty];
    this.dirty.clear();
    for (const [file, produce] of pending) this.writeNow(file, produce());
    const changes = [...this.networkChanges.values()].map((produce) => produce());
    this.networkChanges.clear();
    if (changes.length > 0) this.network?.append(changes);
  }

  private markDirty(file: string, produce: () => string): void {
    this.dirty.set(file, produce);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    this.timer ??= setImmediate(() => this.flush());
  }

  private writeNow(file: string, text: string): void {
    writeAtomically(join(this.dir, file), text);
  }

  private readText(file: string): string | undefined {
    return readTextIfAny(join(this.dir, file));
  }

  private readJson<T>(file: string): T | undefined {
    const text = this.readText(file);
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }
}
