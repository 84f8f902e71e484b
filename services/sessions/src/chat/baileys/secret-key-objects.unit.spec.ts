import * as named from 'node:crypto';
import crypto from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { asSecretKeyObject, installSecretKeyObjects } from './secret-key-objects.js';

const KEY = Buffer.from('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff', 'hex');
const IV = Buffer.alloc(16, 7);
const DATA = Buffer.from('a message as libsignal would encrypt it');

/** What each constructor gives for KEY as bytes, computed before the wrappers are installed. */
function outputs(c: Pick<typeof crypto, 'createHmac' | 'createCipheriv' | 'createDecipheriv'>) {
  const hmac = c.createHmac('sha256', KEY).update(DATA).digest('hex');
  const cipher = c.createCipheriv('aes-256-cbc', KEY, IV);
  const sealed = Buffer.concat([cipher.update(DATA), cipher.final()]);
  const decipher = c.createDecipheriv('aes-256-cbc', new Uint8Array(KEY), IV);
  const opened = Buffer.concat([decipher.update(sealed), decipher.final()]).toString();
  return { hmac, sealed: sealed.toString('hex'), opened };
}

describe('secret keys as KeyObjects', () => {
  it('turns bytes into a KeyObject of the same bytes, and leaves other keys alone', () => {
    const made = asSecretKeyObject(KEY) as crypto.KeyObject;
    expect(made).toBeInstanceOf(crypto.KeyObject);
    expect(made.export().equals(KEY)).toBe(true);
    expect(asSecretKeyObject('a string key')).toBe('a string key');
    expect(asSecretKeyObject(made)).toBe(made);
  });

  it('keeps every result and error once installed, for the module and for its named imports', () => {
    const before = outputs(crypto);
    const originalHmac = named.createHmac;
    installSecretKeyObjects();
    installSecretKeyObjects();
    // Baileys imports the constructors by name: those bindings are the wrappers now.
    expect(named.createHmac).not.toBe(originalHmac);
    expect(named.createHmac).toBe(crypto.createHmac);
    expect(outputs(crypto)).toEqual(before);
    expect(outputs(named)).toEqual(before);
    expect(before.opened).toBe(DATA.toString());
    expect(crypto.createHmac('sha256', 'a string key').update(DATA).digest('hex')).toBe(
      crypto.createHmac('sha256', crypto.createSecretKey(Buffer.from('a string key'))).update(DATA).digest('hex'),
    );
    expect(crypto.createHmac('sha256', Buffer.alloc(0)).digest('hex')).toBe('b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad');
    expect(() => crypto.createCipheriv('aes-256-cbc', KEY.subarray(0, 5), IV)).toThrow(/Invalid key length/);
  });
});
