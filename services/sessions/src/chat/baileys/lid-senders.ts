import { jidDecode } from '@whiskeysockets/baileys';
import type { WAMessage } from '@whiskeysockets/baileys';
import { senderOf, withNumber, withStoredNumber } from './translate-inbound.js';

/** Messages held at most, all LIDs together; beyond it the oldest go (logged by nobody: see the README). */
const MAX_HELD = 256;

/** Baileys' stored LID -> number mapping (`signalRepository.lidMapping.getPNForLID`). */
export type NumberOfLid = (lidJid: string) => Promise<string | null | undefined>;

/**
 * Names contacts' messages by phone number when the network names the sender by LID. With the
 * number beside the LID (`sender_pn`) a message passes as it is; with the LID alone it is named
 * through the mapping on record (Baileys' `lid-mapping` keys, stored with the credentials); while
 * none is known it is held (in memory, bounded) until the number arrives: with a later message of
 * that LID, or Baileys' `lid-mapping.update`. Held messages go out first, in arrival order.
 */
export class LidSenders {
  readonly #held = new Map<string, WAMessage[]>();
  #count = 0;

  /** What to translate now, in order: the held messages this one names, then it (named), or nothing yet. */
  async name(message: WAMessage, numberOf: NumberOfLid): Promise<WAMessage[]> {
    const sender = senderOf(message.key);
    if (message.key.fromMe || sender.lid === undefined) return [message];
    if (sender.phone !== undefined) return [...this.release(sender.lid, sender.phone), message];
    const named = await withStoredNumber(message, numberOf).catch(() => undefined);
    const phone = named && senderOf(named.key).phone;
    if (named && phone) return [...this.release(sender.lid, phone), named];
    this.#hold(sender.lid, message);
    return [];
  }

  /** A mapping learned (`lid-mapping.update`, jids or bare users): the messages held for that LID, named. */
  release(lid: string, phone: string): WAMessage[] {
    const lidUser = jidDecode(lid)?.user ?? lid;
    const held = this.#held.get(lidUser);
    if (!held) return [];
    this.#held.delete(lidUser);
    this.#count -= held.length;
    const pnJid = phone.includes('@') ? phone : `${phone}@s.whatsapp.net`;
    return held.map((message) => withNumber(message, pnJid));
  }

  get held(): number {
    return this.#count;
  }

  #hold(lidUser: string, message: WAMessage): void {
    const list = this.#held.get(lidUser) ?? [];
    list.push(message);
    this.#held.set(lidUser, list);
    this.#count += 1;
    if (this.#count <= MAX_HELD) return;
    const [oldest, messages] = this.#held.entries().next().value as [string, WAMessage[]];
    messages.shift();
    this.#count -= 1;
    if (messages.length === 0) this.#held.delete(oldest);
  }
}
