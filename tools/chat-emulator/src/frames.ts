import { NOISE_WA_HEADER } from '@whiskeysockets/baileys';

const MAX_FRAME = 0xffffff;
const EMPTY = Buffer.alloc(0);

/** Prefixes a frame with its 3-byte big-endian length. */
export const encodeFrame = (payload: Uint8Array): Buffer => {
  if (payload.length > MAX_FRAME) throw new Error('frame too large');
  const header = Buffer.alloc(3);
  header.writeUIntBE(payload.length, 0, 3);
  return Buffer.concat([header, payload]);
};

/**
 * Splits the client's byte stream into frames. The first bytes are the intro header: either
 * `WA 6 3` or, when the client has routing info, `ED 0 1 <3-byte length> <routing info> WA 6 3`.
 */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);
  private introDone = false;

  push(data: Uint8Array): Buffer[] {
    this.buffer = this.buffer.length === 0 ? Buffer.from(data) : Buffer.concat([this.buffer, data]);
    if (!this.introDone && !this.consumeIntro()) return [];
    const frames: Buffer[] = [];
    while (this.buffer.length >= 3) {
      const size = this.buffer.readUIntBE(0, 3);
      if (this.buffer.length < size + 3) break;
      frames.push(this.buffer.subarray(3, size + 3));
      this.buffer = this.buffer.subarray(size + 3);
    }
    // Keep no view into the last (possibly large) chunk: a live connection would pin it.
    this.buffer = this.buffer.length === 0 ? EMPTY : Buffer.from(this.buffer);
    return frames;
  }

  private consumeIntro(): boolean {
    const buf = this.buffer;
    let offset = 0;
    if (buf.length >= 2 && buf.toString('latin1', 0, 2) === 'ED') {
      if (buf.length < 7) return false;
      offset = 7 + ((buf[4] ?? 0) << 16) + buf.readUInt16BE(5);
    }
    if (buf.length < offset + NOISE_WA_HEADER.length) return false;
    if (!buf.subarray(offset, offset + NOISE_WA_HEADER.length).equals(NOISE_WA_HEADER)) {
      throw new Error(`bad intro header ${buf.subarray(0, 4).toString('hex')}`);
    }
    this.buffer = buf.subarray(offset + NOISE_WA_HEADER.length);
    this.introDone = true;
    return true;
  }
}
