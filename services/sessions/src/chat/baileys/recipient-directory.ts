import type { WASocket } from '@whiskeysockets/baileys';
import { BoundedMap } from '../bounded-map.js';
import { RecipientNotOnNetworkError } from '../errors.js';
import type { PhoneNumber } from '../driver.js';

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
  readonly #known = new BoundedMap<string, true>(KNOWN_RECIPIENTS, KNOWN_FOR_MS);

  async isOnNetwork(socket: WASocket, phone: PhoneNumber): Promise<boolean> {
    const digits = normalizePhone(phone);
    if (this.#known.has(digits)) return true;
    const [result] = (await socket.onWhatsApp(digits)) ?? [];
    const exists = result?.exists === true;
    if (exists) this.#known.set(digits, true);
    return exists;
  }

  /** The recipient's jid, or RecipientNotOnNetworkError. */
  async requireOnNetwork(socket: WASocket, phone: PhoneNumber): Promise<string> {
    if (!(await this.isOnNetwork(socket, phone))) throw new RecipientNotOnNetworkError(phone);
    return `${normalizePhone(phone)}@s.whatsapp.net`;
  }
}
