import { describe, expect, it } from 'vitest';
import { NOISE_WA_HEADER } from '@whiskeysockets/baileys';
import { FrameReader, encodeFrame } from './frames.js';

describe('frames', () => {
  it('strips the intro header and reassembles frames split across chunks', () => {
    const stream = Buffer.concat([NOISE_WA_HEADER, encodeFrame(Buffer.from('hello')), encodeFrame(Buffer.from('world!'))]);
    const reader = new FrameReader();
    const frames = [...reader.push(stream.subarray(0, 2)), ...reader.push(stream.subarray(2, 9)), ...reader.push(stream.subarray(9))];
    expect(frames.map((f) => f.toString())).toEqual(['hello', 'world!']);
  });

  it('accepts the routing-info intro (ED 0 1, 3-byte length, routing info, WA header)', () => {
    const routing = Buffer.from('edge-routing');
    const intro = Buffer.concat([Buffer.from('ED'), Buffer.from([0, 1, 0, 0, routing.length]), routing, NOISE_WA_HEADER]);
    expect(new FrameReader().push(Buffer.concat([intro, encodeFrame(Buffer.from('x'))])).map(String)).toEqual(['x']);
  });

  it('refuses a stream that does not start like WhatsApp', () => {
    expect(() => new FrameReader().push(Buffer.from('GET / HTTP/1.1'))).toThrow(/intro header/);
  });
});
