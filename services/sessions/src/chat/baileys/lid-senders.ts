import { BufferJSON, jidDecode } from '@whiskeysockets/baileys';
import type { WAMessage } from '@whiskeysockets/baileys';
import type { CredentialsRow } from '../credentials/credentials-store.js';
import { senderOf, withNumber, withStoredNumber } from './translate-inbound.js';

/** Messages held at most, all LIDs together; beyond it the oldest go (logged by nobody: see the README). */
const MAX_HELD = 256;
/** The credentials-store kind of held messages: one row per message, and at key id '' the list of them in arrival order. */
export const HELD_KIND = 'lid-held';
const INDEX_ID = '';

/** Baileys' stored LID -> number mapping (`signalRepository.lidMapping.getPNForLID`). */
export type NumberOfLid = (lidJid: string) => Promise<string | null | undefined>;

/**
 * Where held messages are kept: rows of the session's credentials store (`SessionCredentials`
 * `readRecord` / `writeRecords`), sealed at rest like its keys and removed with them on logout.
 */
export interface HeldRecords {
  readRecord(kind: string, keyId: string): Promise<Buffer | undefined>;
  writeRecords(rows: readonly CredentialsRow[]): Promise<void>;
}

interface Held {
  /** Its row's key id: `<lid user>/<message id>`. */
  id: string;
  lidUser: string;
  message: WAMessage;
}

/**
 * Names contacts' messages by phone number when the network names the sender by LID. With the
 * number beside the LID (`sender_pn`) a message passes as it is; with the LID alone it is named
 * through the mapping on record (Baileys' `lid-mapping` keys, stored with the credentials); while
 * none is known it is held (bounded) until the number arrives: with a later message of that LID,
 * or Baileys' `lid-mapping.update`. Held messages go out first, in arrival order.
 *
 * With `records`, a held message is written there before `name()` resolves (the network has
 * acknowledged it already), and it stays there until Switchboard recorded it (`recorded()`, then
 * `forgetRecorded()`): a restart or a crash before that reads it back (`restore()`) and tells it
 * again (recording a received message twice keeps one), and those whose LID the stored mapping
 * names by then go out at once. Callers serialize the calls (the driver runs them on its inbound chain).
 */
export class LidSenders {
  readonly #held = new Map<string, Held[]>();
  #count = 0;
  /** Row ids of the messages released and not recorded yet, by network message id. */
  readonly #released = new Map<string, string>();
  /** Rows of messages recorded and not yet removed from the records. */
  #recorded: string[] = [];
  /** The stored list was read (or there is no record): the list may be written. */
  #restored: boolean;

  constructor(private readonly records?: HeldRecords) {
    this.#restored = records === undefined;
  }

  /** What to translate now, in order: the held messages this one names, then it (named), or nothing yet. */
  async name(message: WAMessage, numberOf: NumberOfLid): Promise<WAMessage[]> {
    const sender = senderOf(message.key);
    if (message.key.fromMe || sender.lid === undefined) return [message];
    if (sender.phone !== undefined) return [...this.release(sender.lid, sender.phone), message];
    const named = await withStoredNumber(message, numberOf).catch(() => undefined);
    const phone = named && senderOf(named.key).phone;
    if (named && phone) return [...this.release(sender.lid, phone), named];
    await this.#hold(sender.lid, message);
    return [];
  }

  /** A mapping learned (`lid-mapping.update`, jids or bare users): the messages held for that LID, named. */
  release(lid: string, phone: string): WAMessage[] {
    const lidUser = jidDecode(lid)?.user ?? lid;
    const held = this.#held.get(lidUser);
    if (!held) return [];
    this.#held.delete(lidUser);
    this.#count -= held.length;
    for (const h of held) this.#released.set(h.message.key.id ?? '', h.id);
    const pnJid = phone.includes('@') ? phone : `${phone}@s.whatsapp.net`;
    return held.map((h) => withNumber(h.message, pnJid));
  }

  /**
   * Reads back the messages held before a restart (ahead of any held since), and releases those
   * the stored mapping now names. A failed read is tried again on the next call; meanwhile new
   * ones are held in memory only, so the stored list is not overwritten.
   */
  async restore(numberOf: NumberOfLid): Promise<WAMessage[]> {
    if (this.#restored || !this.records) return [];
    const records = this.records;
    const ids = readJson<string[]>(await records.readRecord(HELD_KIND, INDEX_ID)) ?? [];
    const stored = await Promise.all(ids.map(async (id) => ({ id, message: readJson<WAMessage>(await records.readRecord(HELD_KIND, id)) })));
    const known = new Set([...this.#held.values()].flat().map((h) => h.id));
    const since = [...this.#held.values()].flat();
    this.#held.clear();
    this.#count = 0;
    const dropped: string[] = [];
    for (const { id, message } of stored) if (message && !known.has(id)) dropped.push(...this.#add({ id, lidUser: id.slice(0, id.indexOf('/')), message }));
    for (const h of since) dropped.push(...this.#add(h));
    this.#restored = true;
    const out: WAMessage[] = [];
    for (const lidUser of [...this.#held.keys()]) {
      const phone = await numberOf(`${lidUser}@lid`).catch(() => undefined);
      if (phone) out.push(...this.release(lidUser, phone));
    }
    // Those held since (in memory only until now) written too; nothing stored and nothing held: nothing to write (a KV delete leaves a marker).
    const stillHeld = new Set([...this.#held.values()].flat());
    const rows = [...since.filter((h) => stillHeld.has(h)).map(heldRow), ...dropped.map(deletedRow)];
    if (ids.length > 0 || since.length > 0) await this.#writeIndex(rows).catch(() => undefined);
    return out;
  }

  /** Switchboard recorded the message `networkMessageId`: a held one's row may go (`forgetRecorded`). */
  recorded(networkMessageId: string): void {
    const row = this.#released.get(networkMessageId);
    if (row === undefined) return;
    this.#released.delete(networkMessageId);
    this.#recorded.push(row);
  }

  /** Removes from the records the messages recorded so far; kept for the next call when it fails. */
  async forgetRecorded(): Promise<void> {
    if (!this.records || this.#recorded.length === 0) return;
    const recorded = this.#recorded;
    this.#recorded = [];
    try {
      await this.#writeIndex(recorded.map(deletedRow));
    } catch (error) {
      this.#recorded.unshift(...recorded);
      throw error;
    }
  }

  get held(): number {
    return this.#count;
  }

  async #hold(lidUser: string, message: WAMessage): Promise<void> {
    const id = `${lidUser}/${message.key.id ?? ''}`;
    // The same message again (the network redelivered it): held once.
    if (this.#held.get(lidUser)?.some((h) => h.id === id)) return;
    const held = { id, lidUser, message };
    const rows = [heldRow(held), ...this.#add(held).map(deletedRow)];
    // Not written (the store away): held in memory all the same, as it was before restarts kept them.
    await this.#writeIndex(rows).catch(() => undefined);
  }

  /** Adds one held message; the rows of those dropped to stay within `MAX_HELD`. */
  #add(held: Held): string[] {
    const list = this.#held.get(held.lidUser) ?? [];
    list.push(held);
    this.#held.set(held.lidUser, list);
    this.#count += 1;
    if (this.#count <= MAX_HELD) return [];
    const [oldest, messages] = this.#held.entries().next().value as [string, Held[]];
    const gone = messages.shift()!;
    this.#count -= 1;
    if (messages.length === 0) this.#held.delete(oldest);
    return [gone.id];
  }

  /**
   * Writes `rows` with the list of what is held now (message rows first, in one write). Before
   * the stored list was read, nothing is written: it would overwrite that list.
   */
  async #writeIndex(rows: CredentialsRow[]): Promise<void> {
    if (!this.records || !this.#restored) return;
    // Released ones stay listed until recorded: a restart before that tells them again.
    const ids = [...this.#released.values(), ...[...this.#held.values()].flat().map((h) => h.id)];
    const index = ids.length > 0 ? Buffer.from(JSON.stringify(ids), 'utf8') : null;
    await this.records.writeRecords([...rows, { kind: HELD_KIND, keyId: INDEX_ID, value: index }]);
  }
}

function heldRow({ id, message }: Held): CredentialsRow {
  return { kind: HELD_KIND, keyId: id, value: Buffer.from(JSON.stringify(message, messageReplacer), 'utf8') };
}

function deletedRow(id: string): CredentialsRow {
  return { kind: HELD_KIND, keyId: id, value: null };
}

/** Bytes as Baileys stores them (`BufferJSON`); protobuf Longs (timestamps, sizes) as numbers. */
function messageReplacer(key: string, value: unknown): unknown {
  const long = value as { low?: unknown; high?: unknown; toNumber?: unknown } | null;
  if (long && typeof long === 'object' && 'low' in long && 'high' in long && typeof long.toNumber === 'function') return (long as unknown as { toNumber(): number }).toNumber();
  return BufferJSON.replacer(key, value);
}

function readJson<T>(bytes: Buffer | undefined): T | undefined {
  return bytes ? (JSON.parse(bytes.toString('utf8'), BufferJSON.reviver) as T) : undefined;
}
