import { createHash } from 'node:crypto';
import { crc32, deflateSync } from 'node:zlib';
import QRCode from 'qrcode';
import { BoundedMap } from '../chat/bounded-map.js';

/** Pixels per module, and the quiet zone in modules, around the symbol. */
const SCALE = 6;
const MARGIN = 2;
/** Images kept: the create answer, `GET …/qr` and the feed ask for the same code, which lives 20-60 s. */
const RENDERED = 256;
const RENDERED_FOR_MS = 120_000;

const rendered = new BoundedMap<string, string>(RENDERED, RENDERED_FOR_MS);

/**
 * The pairing string as a PNG a phone camera reads: `data:image/png;base64,…`, rendered once per
 * code. Byte mode: the string is base64 and commas, which the segment optimiser of `qrcode` only
 * confirms, at twice the cost; the PNG is 1-bit greyscale (~14 ms with `toDataURL`, ~1.5 ms here).
 */
export function qrDataUrl(pairingCode: string): Promise<string> {
  let url = rendered.get(pairingCode);
  if (url === undefined) {
    const { modules } = QRCode.create([{ data: Buffer.from(pairingCode, 'utf8'), mode: 'byte' }], { errorCorrectionLevel: 'M' });
    url = `data:image/png;base64,${monochromePng(modules).toString('base64')}`;
    rendered.set(pairingCode, url);
  }
  return Promise.resolve(url);
}

/** 16 hex characters of SHA-256: lets an operator match a code without storing its secret. */
export function qrFingerprint(pairingCode: string): string {
  return createHash('sha256').update(pairingCode).digest('hex').slice(0, 16);
}

/** A PNG (1-bit greyscale, no filter) of the modules, dark on white, scaled, with the quiet zone. */
function monochromePng(modules: { size: number; data: Uint8Array }): Buffer {
  const side = (modules.size + 2 * MARGIN) * SCALE;
  const stride = 1 + Math.ceil(side / 8); // filter byte, then 8 pixels per byte (1 = white)
  const image = Buffer.alloc(stride * side, 0xff);
  for (let y = 0; y < side; y++) image[y * stride] = 0;
  for (let row = 0; row < modules.size; row++) {
    const first = (row + MARGIN) * SCALE * stride;
    for (let column = 0; column < modules.size; column++) {
      if (!modules.data[row * modules.size + column]) continue;
      for (let x = (column + MARGIN) * SCALE; x < (column + MARGIN + 1) * SCALE; x++) image[first + 1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
    }
    for (let copy = 1; copy < SCALE; copy++) image.copy(image, first + copy * stride, first, first + stride);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([1, 0, 0, 0, 0], 8); // bit depth 1, greyscale, deflate, no filter, no interlace
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(image)), chunk('IEND', Buffer.alloc(0))]);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function chunk(type: string, data: Buffer): Buffer {
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const framed = Buffer.alloc(typed.length + 8);
  framed.writeUInt32BE(data.length, 0);
  typed.copy(framed, 4);
  framed.writeUInt32BE(crc32(typed), typed.length + 4);
  return framed;
}
