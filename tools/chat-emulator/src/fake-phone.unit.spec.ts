import { describe, expect, it } from 'vitest';
import { parsePairingQr } from './fake-phone.js';

const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');

describe('reading a pairing QR', () => {
  it('reads ref, Noise key, identity key and ADV secret from the wa.me link', () => {
    const qr = parsePairingQr(`https://wa.me/settings/linked_devices#2@ref,${key(1)},${key(2)},${key(3)},1`);
    expect(qr?.ref).toBe('2@ref');
    expect(qr?.noiseKey.equals(Buffer.alloc(32, 1))).toBe(true);
    expect(qr?.identityKey.equals(Buffer.alloc(32, 2))).toBe(true);
    expect(qr?.advSecret.equals(Buffer.alloc(32, 3))).toBe(true);
  });

  it('rejects anything else', () => {
    expect(parsePairingQr('hello')).toBeUndefined();
    expect(parsePairingQr(`https://wa.me/settings/linked_devices#2@ref,${key(1)}`)).toBeUndefined();
    expect(parsePairingQr(`x#2@ref,c2hvcnQ=,${key(2)},${key(3)}`)).toBeUndefined();
  });
});
