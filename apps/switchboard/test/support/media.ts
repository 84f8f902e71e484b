import { createHash, randomFillSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { crc32, deflateSync } from 'node:zlib';

/** A 1×1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
/** The start of a PDF: enough for a content sniffer. */
export const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n');
/** An MP3 frame behind an ID3v2 header. */
export const MP3 = Buffer.concat([Buffer.from('ID3'), Buffer.from([3, 0, 0, 0, 0, 0, 0]), Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413)]);
/** An MP4 `ftyp` box followed by an empty `mdat`. */
export const MP4 = Buffer.concat([
  Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.from([0, 0, 0, 0]), Buffer.from('mp42isom'),
  Buffer.from([0, 0, 0, 8]), Buffer.from('mdat'),
]);

/**
 * A valid RGB PNG of exactly `size` bytes (at least 1 KiB): random pixels, deflate-stored (random
 * bytes do not compress), so the file is as large as its pixels; a `tEXt` chunk pads it to the byte.
 */
export function pngOfSize(size: number): Buffer {
  const width = 512;
  const row = 1 + width * 3;
  for (let height = Math.max(1, Math.floor((size - 1024) / row)); height > 0; height--) {
    const pixels = randomFillSync(Buffer.alloc(row * height));
    for (let y = 0; y < height; y++) pixels[y * row] = 0; // filter type None
    const header = Buffer.alloc(13);
    header.writeUInt32BE(width, 0);
    header.writeUInt32BE(height, 4);
    header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
    const parts = [Buffer.from('89504e470d0a1a0a', 'hex'), pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(pixels, { level: 0 }))];
    const used = parts.reduce((sum, part) => sum + part.length, 0) + 12 + 12; // + IEND + the padding chunk's frame
    const text = size - used - 'Comment\0'.length;
    if (text < 0) continue;
    return Buffer.concat([...parts, pngChunk('tEXt', Buffer.from(`Comment\0${'x'.repeat(text)}`, 'latin1')), pngChunk('IEND', Buffer.alloc(0))]);
  }
  throw new Error(`no PNG of ${size} bytes`);
}

function pngChunk(type: string, data: Buffer): Buffer {
  const frame = Buffer.alloc(8);
  frame.writeUInt32BE(data.length, 0);
  frame.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([frame.subarray(4), data])), 0);
  return Buffer.concat([frame, data, crc]);
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Serves files on 127.0.0.1, as an integrator's own media host would. */
export async function serveFiles(files: Record<string, { bytes: Buffer; type: string }>) {
  const server = createServer((request, response) => {
    const file = files[request.url ?? ''];
    if (!file) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': file.type, 'content-length': file.bytes.length }).end(file.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
