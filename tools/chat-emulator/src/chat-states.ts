import { resolveJid } from './addressing.js';
import type { LinkedDevice } from './model.js';
import { firstChild } from './wire.js';
import type { Node } from './wire.js';

/**
 * A chat state a linked device showed a contact, as the contact's phone saw it: `composing`
 * ("typing…"), `paused` (stopped typing), or `recording` (a voice note). `at` is when it arrived.
 */
export interface SeenChatState {
  from: string;
  state: 'composing' | 'paused' | 'recording';
  at: string;
}

/** The most chat states kept per contact (oldest go first). */
const KEPT_PER_CONTACT = 200;

/**
 * The `chatstate` stanzas linked devices send (Baileys' `sendPresenceUpdate('composing' | 'paused',
 * jid)`: `<chatstate from=… to=…><composing/></chatstate>`; a voice note is `composing` with
 * `media="audio"`), kept per recipient in memory so a test can see what the contact was shown.
 */
export class ChatStates {
  readonly #byContact = new Map<string, SeenChatState[]>();

  /** Files one `chatstate` stanza from `self`; anything else is ignored. */
  record(self: LinkedDevice, node: Node): void {
    const recipient = resolveJid(node.attrs.to);
    const shown = firstChild(node);
    if (!recipient || !shown || (shown.tag !== 'composing' && shown.tag !== 'paused')) return;
    const state = shown.tag === 'composing' && shown.attrs.media === 'audio' ? 'recording' : shown.tag;
    const seen = this.#byContact.get(recipient.phone) ?? [];
    seen.push({ from: self.phone, state, at: new Date().toISOString() });
    if (seen.length > KEPT_PER_CONTACT) seen.splice(0, seen.length - KEPT_PER_CONTACT);
    this.#byContact.set(recipient.phone, seen);
  }

  /** What the contact of `phone` was shown, oldest first. */
  of(phone: string): SeenChatState[] {
    return [...(this.#byContact.get(phone) ?? [])];
  }
}
