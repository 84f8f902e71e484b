import { createHash } from 'node:crypto';
import QRCode from 'qrcode';

/** The pairing string as a PNG a phone camera reads: `data:image/png;base64,…`. */
export function qrDataUrl(pairingCode: string): Promise<string> {
  return QRCode.toDataURL(pairingCode, { type: 'image/png', errorCorrectionLevel: 'M', margin: 2, scale: 6 });
}

/** 16 hex characters of SHA-256: lets an operator match a code without storing its secret. */
export function qrFingerprint(pairingCode: string): string {
  return createHash('sha256').update(pairingCode).digest('hex').slice(0, 16);
}
