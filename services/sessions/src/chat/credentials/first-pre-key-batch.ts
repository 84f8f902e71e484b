import { INITIAL_PREKEY_COUNT, initAuthCreds } from '@whiskeysockets/baileys';
import type { AuthenticationCreds } from '@whiskeysockets/baileys';

/**
 * One-time pre-keys a new device uploads at its first login: whatsmeow's batch (WantedPreKeyCount),
 * and the size of the first upload of Baileys 6 (30) and whatsmeow (50) for years, which the
 * network accepted. The network asks for more when it runs low (`<notification type="encrypt">`
 * with a count under 5), and Baileys then uploads 5 at a time.
 */
export const FIRST_PRE_KEY_BATCH = 50;

/**
 * Ids Baileys counts as generated-but-not-uploaded in a new device's creds, so that its first
 * upload (INITIAL_PREKEY_COUNT = 812, a constant: WhatsApp Web's number since late 2025) generates
 * only FIRST_PRE_KEY_BATCH pairs. Generating, storing and uploading 812 pairs was a third of a
 * pairing's CPU (issue 17).
 */
const NEVER_GENERATED = Math.max(0, INITIAL_PREKEY_COUNT - FIRST_PRE_KEY_BATCH);

/**
 * Creds for a device that has not paired yet. Relies on Baileys 7's `generateOrGetPreKeys` /
 * `getNextPreKeys` (lib/Utils/signal.js): the upload generates `count - (nextPreKeyId -
 * firstUnuploadedPreKeyId)` new pairs from `nextPreKeyId` on, then uploads the ids in
 * [firstUnuploadedPreKeyId, + count) that the key store holds, and moves both counters past them.
 * The window's ids were never generated, so the store holds none of them and only the new pairs
 * go out; with another Baileys the worst case is its own 812.
 */
export function newDeviceCreds(): AuthenticationCreds {
  const creds = initAuthCreds();
  return { ...creds, nextPreKeyId: creds.firstUnuploadedPreKeyId + NEVER_GENERATED };
}

/**
 * Whether pre-key `id` lies in the window of `newDeviceCreds` that was never generated: known
 * absent, so the key store is not asked for the 762 ids Baileys reads back before its first upload.
 * The window is open only until that upload moves the counters.
 */
export function isNeverGeneratedPreKey(creds: AuthenticationCreds, id: string): boolean {
  const { firstUnuploadedPreKeyId: first, nextPreKeyId: next } = creds;
  const keyId = Number(id);
  return NEVER_GENERATED > 0 && next - first === NEVER_GENERATED && keyId >= first && keyId < next;
}
