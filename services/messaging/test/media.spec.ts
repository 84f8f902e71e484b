import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FolderBlobStore, sha256Hex } from '@switchboard/blob-store';
import { loadConfig } from '@switchboard/service-kit';
import { resolveMedia } from '../src/media/resolve-media.js';
import type { MediaPolicy } from '../src/media/resolve-media.js';
import type { ResolvedAddress, Resolver } from '../src/media/fetch-url.js';
import { MediaServer, MP3, MP4, PDF, PNG_1PX } from './media-fixtures.js';

const IMAGE_CAP = 5 * 1024 * 1024;
const blobDir = mkdtempSync(join(tmpdir(), 'sb-media-'));
const blobs = new FolderBlobStore(blobDir);
let server: MediaServer;
const slowResponses: { destroy(): void }[] = [];
let streamedBytes = 0;

beforeAll(async () => {
  server = await MediaServer.start((req, res) => {
    const path = req.url ?? '/';
    if (path === '/photo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG_1PX);
    if (path === '/doc.pdf') return void res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
    if (path === '/notes.txt') return void res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('plain notes');
    if (path === '/missing') return void res.writeHead(404).end();
    if (path === '/to-metadata') return void res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    if (path === '/to-photo') return void res.writeHead(301, { location: '/photo.png' }).end();
    if (path === '/declared-huge') return void res.writeHead(200, { 'content-length': String(IMAGE_CAP + 1) }).end();
    if (path === '/endless') return streamForever(res);
    if (path === '/never') return void slowResponses.push(res);
    res.writeHead(500).end();
  });
});
afterAll(async () => {
  for (const res of slowResponses) res.destroy();
  await server.close();
  rmSync(blobDir, { recursive: true, force: true });
});

/** Inline media as the gateway hands it on: put in the blob store, referenced by sha256. */
async function stored(bytes: Uint8Array, mimetype: string | null = null) {
  return { sha256: await blobs.put(bytes), size: bytes.length, mimetype };
}
afterEach(() => vi.restoreAllMocks());

/** Streams 64 KiB chunks with no Content-Length until the client goes away. */
function streamForever(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'image/png' });
  const chunk = Buffer.alloc(64 * 1024, 1);
  const write = () => {
    if (res.destroyed || streamedBytes > 64 * 1024 * 1024) return void res.end();
    streamedBytes += chunk.length;
    if (res.write(chunk)) setImmediate(write);
    else res.once('drain', write);
  };
  write();
}

/** A resolver that answers from a table and records what it was asked: no real DNS, ever. */
function stubResolver(table: Record<string, string[] | (() => string[])>): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (host: string): Promise<ResolvedAddress[]> => {
    calls.push(host);
    const entry = table[host];
    if (entry === undefined) throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
    const addresses = typeof entry === 'function' ? entry() : entry;
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(resolver, { calls });
}

const policy = (overrides: Partial<MediaPolicy> = {}): MediaPolicy => ({ allowLoopback: true, fetchTimeoutMs: 5_000, ...overrides });
const image = (media: string) => ({ mediaType: 'image' as const, media });

describe('media from a URL', () => {
  it('fetches, sniffs and describes an image from a loopback server when loopback is allowed', async () => {
    const { bytes, descriptor } = await resolveMedia(image(server.url('/photo.png')), policy(), blobs);
    expect(Buffer.from(bytes).equals(PNG_1PX)).toBe(true);
    expect(descriptor).toEqual({ mediaType: 'image', mimetype: 'image/png', sha256: sha256Hex(PNG_1PX), size: PNG_1PX.length });
  });

  it('follows a redirect to an allowed address', async () => {
    const { descriptor } = await resolveMedia(image(server.url('/to-photo')), policy(), blobs);
    expect(descriptor.mimetype).toBe('image/png');
  });

  it('refuses loopback when the operator switch is off, without connecting', async () => {
    const before = server.connections;
    await expect(resolveMedia(image(server.url('/photo.png')), policy({ allowLoopback: false }), blobs)).rejects.toMatchObject({ code: 'MEDIA_URL_FORBIDDEN' });
    await expect(resolveMedia(image(server.url('/photo.png', '[::1]')), policy({ allowLoopback: false }), blobs)).rejects.toMatchObject({ code: 'MEDIA_URL_FORBIDDEN' });
    expect(server.connections).toBe(before);
  });

  it.each([
    ['private 10/8', ['10.1.2.3']],
    ['private 192.168/16', ['192.168.0.10']],
    ['cloud metadata', ['169.254.169.254']],
    ['CGNAT', ['100.64.0.7']],
    ['multicast', ['224.0.0.251']],
    ['IPv6 unique local', ['fd00:ec2::254']],
    ['IPv6 link-local', ['fe80::1']],
    ['IPv4-mapped private', ['::ffff:10.0.0.1']],
    ['loopback hidden next to a public address', ['93.184.215.14', '127.0.0.1']],
  ])('refuses a name that resolves to %s, checked after DNS and before any connection', async (_name, addresses) => {
    const connect = vi.spyOn(Socket.prototype, 'connect');
    const resolver = stubResolver({ 'media.example.test': addresses });
    const request = image('http://media.example.test/a.png');
    await expect(resolveMedia(request, policy({ allowLoopback: false, resolver }), blobs)).rejects.toMatchObject({ code: 'MEDIA_URL_FORBIDDEN' });
    expect(resolver.calls).toEqual(['media.example.test']);
    expect(connect).not.toHaveBeenCalled();
  });

  it('refuses IP literals of forbidden ranges without resolving or connecting', async () => {
    const connect = vi.spyOn(Socket.prototype, 'connect');
    const resolver = stubResolver({});
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[::ffff:a9fe:a9fe]/', 'https://10.0.0.1/x.png', 'http://0.0.0.0:80/']) {
      await expect(resolveMedia(image(url), policy({ resolver }), blobs)).rejects.toMatchObject({ code: 'MEDIA_URL_FORBIDDEN' });
    }
    expect(resolver.calls).toEqual([]);
    expect(connect).not.toHaveBeenCalled();
  });

  it('checks every redirect hop: a redirect to the metadata address is refused before connecting to it', async () => {
    const connect = vi.spyOn(Socket.prototype, 'connect');
    await expect(resolveMedia(image(server.url('/to-metadata')), policy(), blobs)).rejects.toMatchObject({ code: 'MEDIA_URL_FORBIDDEN' });
    expect(connect).toHaveBeenCalledTimes(1); // the loopback server only
  });

  it('connects to the address it checked: a second DNS answer (rebinding) is never asked for', async () => {
    let answers = 0;
    // First answer: the (allowed) loopback server; any later answer would be a private address.
    const resolver = stubResolver({ 'cdn.example.test': () => (answers++ === 0 ? ['127.0.0.1'] : ['10.0.0.99']) });
    const url = `http://cdn.example.test:${server.port}/photo.png`;
    const { descriptor } = await resolveMedia(image(url), policy({ resolver }), blobs);
    expect(descriptor.sha256).toBe(sha256Hex(PNG_1PX));
    expect(resolver.calls).toEqual(['cdn.example.test']);
  });

  it('enforces the size cap while streaming (no Content-Length) and stops reading', async () => {
    streamedBytes = 0;
    await expect(resolveMedia(image(server.url('/endless')), policy(), blobs)).rejects.toMatchObject({
      code: 'MEDIA_TOO_LARGE', message: expect.stringContaining('5 MiB'), details: { mediaType: 'image', limit: IMAGE_CAP },
    });
    // The server stopped well before its 64 MiB: the client hung up once past the 5 MiB cap.
    await expect.poll(() => streamedBytes).toBeGreaterThan(IMAGE_CAP);
    expect(streamedBytes).toBeLessThan(32 * 1024 * 1024);
  });

  it('refuses a declared Content-Length over the cap before reading the body', async () => {
    await expect(resolveMedia(image(server.url('/declared-huge')), policy(), blobs)).rejects.toMatchObject({
      code: 'MEDIA_TOO_LARGE', message: expect.stringContaining('5 MiB'), details: { mediaType: 'image', limit: IMAGE_CAP, size: IMAGE_CAP + 1 },
    });
  });

  it('gives up on a server that never answers', async () => {
    await expect(resolveMedia(image(server.url('/never')), policy({ fetchTimeoutMs: 300 }), blobs)).rejects.toMatchObject({
      code: 'MEDIA_UNREACHABLE',
      message: expect.stringContaining('no answer within 300 ms'),
    });
  });

  it('reports an HTTP error status and an unresolvable name as unreachable', async () => {
    await expect(resolveMedia(image(server.url('/missing')), policy(), blobs)).rejects.toMatchObject({ code: 'MEDIA_UNREACHABLE', message: expect.stringContaining('HTTP 404') });
    const resolver = stubResolver({});
    await expect(resolveMedia(image('http://nowhere.example.test/a.png'), policy({ resolver }), blobs)).rejects.toMatchObject({ code: 'MEDIA_UNREACHABLE' });
  });
});

describe('sniffing the bytes against mediaType', () => {
  it('refuses a PDF sent as an image', async () => {
    await expect(resolveMedia(image(server.url('/doc.pdf')), policy(), blobs)).rejects.toMatchObject({
      code: 'MEDIA_TYPE_MISMATCH',
      message: 'The media is of type application/pdf, not an image.',
    });
  });

  it('refuses bytes of no recognised type as video', async () => {
    const media = await stored(Buffer.from('just some text'));
    await expect(resolveMedia({ mediaType: 'video', media }, policy(), blobs)).rejects.toMatchObject({ code: 'MEDIA_TYPE_MISMATCH' });
  });

  it.each([
    ['video', MP4, 'video/mp4'],
    ['audio', MP3, 'audio/mpeg'],
    ['document', PDF, 'application/pdf'],
  ] as const)('accepts %s bytes as %s', async (mediaType, bytes, mimetype) => {
    const { descriptor } = await resolveMedia({ mediaType, media: await stored(bytes) }, policy(), blobs);
    expect(descriptor.mimetype).toBe(mimetype);
  });

  it('takes any bytes as a document, typed by the data URL or the server', async () => {
    const fromDataUrl = await resolveMedia({ mediaType: 'document', media: await stored(Buffer.from('a,b\n1,2'), 'text/csv'), filename: 'a.csv' }, policy(), blobs);
    expect(fromDataUrl.descriptor).toMatchObject({ mimetype: 'text/csv', filename: 'a.csv' });
    const fromServer = await resolveMedia({ mediaType: 'document', media: server.url('/notes.txt') }, policy(), blobs);
    expect(fromServer.descriptor.mimetype).toBe('text/plain');
  });

  it("names a document sent without filename after its URL's last segment, else file.<ext> of its type", async () => {
    const fromServer = await resolveMedia({ mediaType: 'document', media: server.url('/notes.txt') }, policy(), blobs);
    expect(fromServer.descriptor.filename).toBe('notes.txt');
    const inline = await resolveMedia({ mediaType: 'document', media: await stored(Buffer.from('a,b\n1,2'), 'text/csv') }, policy(), blobs);
    expect(inline.descriptor.filename).toBe('file.csv');
    const photo = await resolveMedia(image(server.url('/photo.png')), policy(), blobs);
    expect(photo.descriptor.filename).toBeUndefined();
  });
});

describe('inline media, stored by the gateway', () => {
  it('reads the bytes back by their sha256 and describes them', async () => {
    const { bytes, descriptor } = await resolveMedia({ mediaType: 'image', media: await stored(PNG_1PX, 'image/png') }, policy(), blobs);
    expect(Buffer.from(bytes).equals(PNG_1PX)).toBe(true);
    expect(descriptor).toEqual({ mediaType: 'image', mimetype: 'image/png', sha256: sha256Hex(PNG_1PX), size: PNG_1PX.length });
  });

  it('still applies the type cap to stored bytes, whoever stored them', async () => {
    const big = Buffer.concat([PNG_1PX, Buffer.alloc(IMAGE_CAP)]);
    await expect(resolveMedia({ mediaType: 'image', media: await stored(big) }, policy(), blobs)).rejects.toMatchObject({
      code: 'MEDIA_TOO_LARGE', details: { mediaType: 'image', limit: IMAGE_CAP, size: big.length },
    });
  });

  it('answers MEDIA_UNREACHABLE when the bytes are no longer stored', async () => {
    const media = await stored(Buffer.from('gone soon'));
    await blobs.delete(media.sha256);
    await expect(resolveMedia({ mediaType: 'document', media }, policy(), blobs)).rejects.toMatchObject({ code: 'MEDIA_UNREACHABLE' });
  });
});

describe('the operator switch SWITCHBOARD_MEDIA_ALLOW_LOOPBACK', () => {
  it('is off by default, on for "true" or "1", and a typo stops the process instead of guessing', () => {
    expect(loadConfig({}).mediaAllowLoopback).toBe(false);
    expect(loadConfig({ SWITCHBOARD_MEDIA_ALLOW_LOOPBACK: 'true' }).mediaAllowLoopback).toBe(true);
    expect(loadConfig({ SWITCHBOARD_MEDIA_ALLOW_LOOPBACK: '1' }).mediaAllowLoopback).toBe(true);
    expect(loadConfig({ SWITCHBOARD_MEDIA_ALLOW_LOOPBACK: 'false' }).mediaAllowLoopback).toBe(false);
    expect(() => loadConfig({ SWITCHBOARD_MEDIA_ALLOW_LOOPBACK: 'yes' })).toThrow(/SWITCHBOARD_MEDIA_ALLOW_LOOPBACK/);
  });
});
