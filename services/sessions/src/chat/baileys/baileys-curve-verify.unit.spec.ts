import { randomBytes } from 'node:crypto';
import { Curve } from '@whiskeysockets/baileys';
import { describe, expect, it, vi } from 'vitest';
import { installWorkingCurveVerify, rememberValidSignatures } from './baileys-curve-verify.js';
import { verifyCurve25519Signature } from './xeddsa-verify.js';

/** A key pair and a message signed by Baileys' signer (the scheme the network and the emulator sign with). */
function signed(length = 80) {
  const keys = Curve.generateKeyPair();
  const message = randomBytes(length);
  return { publicKey: keys.public, message, signature: Buffer.from(Curve.sign(keys.private, message)) };
}

function flipped(bytes: Uint8Array, bit: number): Buffer {
  const copy = Buffer.from(bytes);
  copy[bit >> 3]! ^= 1 << (bit & 7);
  return copy;
}

describe('curve25519 signatures verified natively', () => {
  it('accepts what the signer signed, for any key and message length, with or without the type byte', () => {
    for (let i = 0; i < 40; i++) {
      const { publicKey, message, signature } = signed(1 + i * 7);
      expect(verifyCurve25519Signature(publicKey, message, signature)).toBe(true);
      expect(verifyCurve25519Signature(Buffer.concat([Buffer.from([5]), publicKey]), message, signature)).toBe(true);
    }
  });

  it('refuses a signature with any one bit changed, a changed message and another key', () => {
    const { publicKey, message, signature } = signed();
    for (let bit = 0; bit < 512; bit++) expect(verifyCurve25519Signature(publicKey, message, flipped(signature, bit))).toBe(false);
    for (let bit = 0; bit < message.length * 8; bit += 13) expect(verifyCurve25519Signature(publicKey, flipped(message, bit), signature)).toBe(false);
    expect(verifyCurve25519Signature(Curve.generateKeyPair().public, message, signature)).toBe(false);
    expect(verifyCurve25519Signature(publicKey.subarray(1), message, signature)).toBe(false);
    expect(verifyCurve25519Signature(publicKey, message, signature.subarray(1))).toBe(false);
  });
});

describe('valid signatures remembered', () => {
  it('verifies the same signature once, and a failed one every time, never passing it', () => {
    const { publicKey, message, signature } = signed();
    const verify = vi.fn(verifyCurve25519Signature);
    const remembered = rememberValidSignatures(verify, 4);
    expect([remembered(publicKey, message, signature), remembered(publicKey, message, signature)]).toEqual([true, true]);
    expect(verify).toHaveBeenCalledTimes(1);
    const tampered = flipped(signature, 9);
    expect([remembered(publicKey, message, tampered), remembered(publicKey, message, tampered)]).toEqual([false, false]);
    expect(verify).toHaveBeenCalledTimes(3);
  });

  it('keeps only the last `capacity` signatures', () => {
    const verify = vi.fn(verifyCurve25519Signature);
    const remembered = rememberValidSignatures(verify, 2);
    const [first, ...others] = [signed(), signed(), signed()];
    for (const s of [first!, ...others]) remembered(s.publicKey, s.message, s.signature);
    expect(remembered(first!.publicKey, first!.message, first!.signature)).toBe(true);
    expect(verify).toHaveBeenCalledTimes(4);
  });
});

describe("Baileys' Curve.verify once installed", () => {
  it('refuses a tampered certificate signature, also after the genuine one was remembered', () => {
    installWorkingCurveVerify();
    const { publicKey, message, signature } = signed();
    expect(Curve.verify(publicKey, message, signature)).toBe(true);
    expect(Curve.verify(publicKey, message, flipped(signature, 100))).toBe(false);
    expect(Curve.verify(publicKey, flipped(message, 3), signature)).toBe(false);
    expect(Curve.verify(publicKey, message, signature)).toBe(true);
  });
});
