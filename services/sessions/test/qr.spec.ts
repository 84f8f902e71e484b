import { randomBytes } from 'node:crypto';
import QRCode from 'qrcode';
import { describe, expect, it, vi } from 'vitest';
import { qrDataUrl } from '../src/connections/qr.js';
import { decodeQrDataUrl } from './harness.js';

/** A pairing string shaped like Baileys' QR: ref, noise key, identity key, ADV secret. */
const pairingCode = () => ['2@' + randomBytes(60).toString('base64'), ...[1, 2, 3].map(() => randomBytes(32).toString('base64'))].join(',');

describe('QR image of a pairing code', () => {
  it('is a PNG data URL a camera reads back as the code', async () => {
    for (const code of [pairingCode(), pairingCode(), 'short,code']) {
      const url = await qrDataUrl(code);
      expect(url).toMatch(/^data:image\/png;base64,/);
      expect(decodeQrDataUrl(url)).toBe(code);
    }
  });

  it('is rendered once per code (the create answer, GET …/qr and the feed show the same code)', async () => {
    const encodes = vi.spyOn(QRCode, 'create');
    const code = pairingCode();
    const first = await qrDataUrl(code);
    expect(await qrDataUrl(code)).toBe(first);
    expect(encodes).toHaveBeenCalledTimes(1);
    expect(decodeQrDataUrl(await qrDataUrl(pairingCode()))).not.toBe(code);
    expect(encodes).toHaveBeenCalledTimes(2);
    encodes.mockRestore();
  });
});
