import { USyncQuery, USyncUser } from '@whiskeysockets/baileys';
import type { WASocket } from '@whiskeysockets/baileys';
import { BoundedMap } from '../bounded-map.js';
import { RecipientNotOnNetworkError } from '../errors.js';
import type { ContactLookup, PhoneNumber } from '../driver.js';

const KNOWN_RECIPIENTS = 1_024;
const KNOWN_FOR_MS = 10 * 60_000;

/** Digits of an international number, `+` and separators removed; throws on anything else. */
export function normalizePhone(phone: PhoneNumber): string {
  const digits = phone.replace(/^\+/, '').replace(/[\s().-]/g, '');
  if (!/^[1-9]\d{5,14}$/.test(digits)) throw new RangeError(`not an international phone number: ${phone}`);
  return digits;
}

/**
 * Answers "is this number on the network?" with a contact lookup, remembering yes for a while
 * so a busy conversation costs one lookup, not one per message. No is never remembered: the
 * person may join at any time.
 */
export class RecipientDirectory {
  readonly #known = new BoundedMap<string, ContactLookup>(KNOWN_RECIPIENTS, KNOWN_FOR_MS);

  /** A contact lookup (usync) over the socket; a known "yes" is answered from memory. */
  async lookup(socket: WASocket, phone: PhoneNumber): Promise<ContactLookup> {
    const digits = normalizePhone(phone);
    const known = this.#known.get(digits);
    if (known) return known;
    // The contact and LID protocols in one usync query (Baileys' onWhatsApp asks for the first only).
    const query = new USyncQuery().withContactProtocol().withLIDProtocol().withUser(new USyncUser().withPhone(`+${digits}`));
    const [result] = (await socket.executeUSyncQuery(query))?.list ?? [];
    if (result?.contact !== true) return { onWhatsApp: false };
    const lid = result.lid;
    const answer: ContactLookup = typeof lid === 'string' && lid !== '' ? { onWhatsApp: true, lid } : { onWhatsApp: true };
    this.#known.set(digits, answer);
    return answer;
  }

  /** The recipient's jid, or RecipientNotOnNetworkError. */
  async requireOnNetwork(socket: WASocket, phone: PhoneNumber): Promise<string> {
    if (!(await this.lookup(socket, phone)).onWhatsApp) throw new RecipientNotOnNetworkError(phone);
    return `${normalizePhone(phone)}@s.whatsapp.net`;
  }
}
