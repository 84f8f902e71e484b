import { createCipheriv, pbkdf2, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Curve, aesDecryptGCM, hkdf } from '@whiskeysockets/baileys';
import type { KeyPair } from '@whiskeysockets/baileys';

// The phone's side of "link with phone number": the companion shows an 8-character code, the
// person types it on the phone, and both ends prove they know it by wrapping their ephemeral keys
// with it. Sources: Baileys 7 `requestPairingCode` / `generatePairingKey` (Socket/socket.js) and
// the `link_code_companion_reg` notification (Socket/messages-recv.js), `derivePairingCodeKey`
// (Utils/crypto.js); whatsmeow pair-code.go (`PairPhone`, `handleCodePairNotification`).

/** Crockford-like base32 without 0, I, O and U (Baileys `bytesToCrockford`, whatsmeow `linkingBase32`). */
const LINK_CODE = /^[1-9A-HJ-NP-TV-Z]{8}$/;
/** PBKDF2-SHA256 rounds that stretch the code into an AES key (`2 << 16`). */
const CODE_KEY_ROUNDS = 2 << 16;
const SALT = 32;
const CTR_IV = 16;
const GCM_NONCE = 12;
const KEY = 32;

const pbkdf2Async = promisify(pbkdf2);

/**
 * The code as the phone's input boxes take it: 8 characters, case ignored, a hyphen or spaces
 * between the groups allowed (WhatsApp shows it as `ABCD-EFGH`); undefined when it cannot be one.
 */
export const normalizeLinkCode = (typed: string): string | undefined => {
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  return LINK_CODE.test(code) ? code : undefined;
};

const codeKey = (code: string, salt: Buffer): Promise<Buffer> => pbkdf2Async(code, salt, CODE_KEY_ROUNDS, KEY, 'sha256');

const aesCtr = (key: Buffer, iv: Buffer, data: Buffer): Buffer => {
  const cipher = createCipheriv('aes-256-ctr', key, iv);
  return Buffer.concat([cipher.update(data), cipher.final()]);
};

/**
 * Opens `link_code_pairing_wrapped_companion_ephemeral_pub`: salt (32) | IV (16) | the companion's
 * ephemeral public key under AES-256-CTR with PBKDF2(code, salt). CTR has no integrity: a wrong
 * code yields a wrong key, found out only when the companion's key bundle does not open.
 */
export const unwrapEphemeral = async (code: string, wrapped: Buffer): Promise<Buffer> => {
  if (wrapped.length < SALT + CTR_IV + KEY) throw new Error('wrapped ephemeral key too short');
  const salt = wrapped.subarray(0, SALT);
  const iv = wrapped.subarray(SALT, SALT + CTR_IV);
  return aesCtr(await codeKey(code, salt), iv, wrapped.subarray(SALT + CTR_IV, SALT + CTR_IV + KEY));
};

/** The phone's ephemeral public key wrapped the same way, for `link_code_pairing_wrapped_primary_ephemeral_pub`. */
export const wrapEphemeral = async (code: string, publicKey: Uint8Array): Promise<Buffer> => {
  const salt = randomBytes(SALT);
  const iv = randomBytes(CTR_IV);
  return Buffer.concat([salt, iv, aesCtr(await codeKey(code, salt), iv, Buffer.from(publicKey))]);
};

/** What the companion's key bundle holds once opened. */
export interface KeyBundle {
  companionIdentity: Buffer;
  primaryIdentity: Buffer;
  /** The companion's share of the ADV secret. */
  random: Buffer;
}

/**
 * Opens `link_code_pairing_wrapped_key_bundle`: salt (32) | nonce (12) | AES-256-GCM under
 * HKDF(ephemeral shared secret, salt, "link_code_pairing_key_bundle_encryption_key") of
 * companion identity | primary identity | random. Undefined when it does not authenticate, which
 * is how the phone learns the code was wrong.
 */
export const openKeyBundle = (ephemeralShared: Buffer, wrapped: Buffer): KeyBundle | undefined => {
  const salt = wrapped.subarray(0, SALT);
  const nonce = wrapped.subarray(SALT, SALT + GCM_NONCE);
  const key = Buffer.from(hkdf(ephemeralShared, KEY, { salt, info: 'link_code_pairing_key_bundle_encryption_key' }));
  let plain: Buffer;
  try {
    plain = Buffer.from(aesDecryptGCM(wrapped.subarray(SALT + GCM_NONCE), key, nonce, Buffer.alloc(0)));
  } catch {
    return undefined;
  }
  if (plain.length !== 3 * KEY) return undefined;
  return { companionIdentity: plain.subarray(0, KEY), primaryIdentity: plain.subarray(KEY, 2 * KEY), random: plain.subarray(2 * KEY) };
};

/**
 * The secret that keys `pair-success`'s HMAC in place of the QR's ADV secret: HKDF("adv_secret") of
 * the ephemeral shared secret, the identity keys' shared secret and the companion's random.
 */
export const linkCodeAdvSecret = (ephemeralShared: Buffer, primaryIdentity: KeyPair, bundle: KeyBundle): Buffer => {
  const identityShared = Curve.sharedKey(primaryIdentity.private, bundle.companionIdentity);
  return Buffer.from(hkdf(Buffer.concat([ephemeralShared, identityShared, bundle.random]), KEY, { info: 'adv_secret' }));
};
