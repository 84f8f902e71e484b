import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Curve, aesDecryptCTR, aesEncryptCTR, aesEncryptGCM, bytesToCrockford, derivePairingCodeKey, hkdf } from '@whiskeysockets/baileys';
import { normalizeLinkCode, openKeyBundle, unwrapEphemeral, wrapEphemeral } from './link-code.js';

describe('the code a person types on the phone', () => {
  it('takes the 8 characters the device shows, grouped or not, in any case', () => {
    expect(normalizeLinkCode('ABCD-EFGH')).toBe('ABCDEFGH');
    expect(normalizeLinkCode('abcd efgh')).toBe('ABCDEFGH');
    expect(normalizeLinkCode(bytesToCrockford(randomBytes(5)))).toMatch(/^[1-9A-HJ-NP-TV-Z]{8}$/);
  });

  it('refuses what cannot be a code: too short or long, or a character the alphabet leaves out (0, I, O, U)', () => {
    for (const typed of ['ABCDEFG', 'ABCDEFGHJ', 'ABCDEFG0', 'ABCDEFGI', 'ABCDEFGO', 'ABCDEFGU', '']) expect(normalizeLinkCode(typed)).toBeUndefined();
  });
});

describe('keys wrapped with the code, as Baileys wraps and unwraps them', () => {
  it('opens the companion key Baileys wrapped (PBKDF2 of the code, AES-CTR), and Baileys opens the one the phone wraps', async () => {
    const code = bytesToCrockford(randomBytes(5));
    const companion = Curve.generateKeyPair();
    const salt = randomBytes(32);
    const iv = randomBytes(16);
    const wrapped = Buffer.concat([salt, iv, aesEncryptCTR(companion.public, await derivePairingCodeKey(code, salt), iv)]);
    expect(await unwrapEphemeral(code, wrapped)).toEqual(companion.public);

    const phone = Curve.generateKeyPair();
    const back = await wrapEphemeral(code, phone.public);
    const key = await derivePairingCodeKey(code, back.subarray(0, 32));
    expect(Buffer.from(aesDecryptCTR(back.subarray(48, 80), key, back.subarray(32, 48)))).toEqual(phone.public);
  });

  it('opens the key bundle only under the shared secret it was sealed with', () => {
    const shared = randomBytes(32);
    const salt = randomBytes(32);
    const nonce = randomBytes(12);
    const key = hkdf(shared, 32, { salt, info: 'link_code_pairing_key_bundle_encryption_key' });
    const plain = Buffer.concat([randomBytes(32), randomBytes(32), randomBytes(32)]);
    const wrapped = Buffer.concat([salt, nonce, aesEncryptGCM(plain, key, nonce, Buffer.alloc(0))]);
    expect(openKeyBundle(shared, wrapped)).toEqual({ companionIdentity: plain.subarray(0, 32), primaryIdentity: plain.subarray(32, 64), random: plain.subarray(64) });
    expect(openKeyBundle(randomBytes(32), wrapped)).toBeUndefined();
  });
});
