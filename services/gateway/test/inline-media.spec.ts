import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { FolderBlobStore, sha256Hex } from '@switchboard/blob-store';
import { MessagingSubjects, idempotencyRequestHash } from '@switchboard/contracts';
import type { SendMediaCommand } from '@switchboard/contracts';
import type { InProcessBus } from '@switchboard/bus';
import type { FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../src/index.js';
import { bearer, createAccount, quotaBus, startGateway } from './support.js';

const MiB = 1024 * 1024;
const IMAGE_CAP = 5 * MiB;
/** PNG signature and header, then padding: the gateway decodes and stores, messaging sniffs. */
const png = (size: number) => Buffer.concat([Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'), Buffer.alloc(size - 16, 7)]);
const SESSION = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';

describe('inline media: stored by the gateway, referenced on the bus', () => {
  const folder = mkdtempSync(join(tmpdir(), 'sb-gateway-media-'));
  let bus: InProcessBus;
  let blobs: FolderBlobStore;
  let app: FastifyInstance;
  let apiKey: string;
  const commands: SendMediaCommand[] = [];

  const sendMedia = (body: object, headers: Record<string, string> = {}) =>
    app.inject({ method: 'POST', url: '/v1/messages/media', headers: { ...bearer(apiKey), ...headers }, payload: body });

  async function start(store: FolderBlobStore): Promise<void> {
    ({ bus } = await quotaBus());
    commands.length = 0;
    // Stands in for messaging: records what the gateway asked for, answers as it would.
    await bus.subscribe(MessagingSubjects.sendMedia.subject, (message) => {
      const command = MessagingSubjects.sendMedia.request.parse(message.data);
      commands.push(command);
      return { messageId: 'msg_01JD8Z6Q9V4N2C3B5X7M1K0P2R', status: 'sent', timestamp: new Date().toISOString(), mediaType: command.body.mediaType };
    });
    app = await startGateway(bus, { blobStore: store });
    ({ apiKey } = await createAccount(app));
  }

  beforeEach(async () => {
    blobs = new FolderBlobStore(join(folder, `store-${Date.now()}`));
    await start(blobs);
  });
  afterEach(async () => {
    await app.close();
    await bus.close();
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('puts a 4 MiB data-URL image in the blob store and sends messaging its sha256, not the bytes', async () => {
    const image = png(4 * MiB);
    const body = { sessionId: SESSION, to: '15551234567', mediaType: 'image', media: `data:image/png;base64,${image.toString('base64')}`, caption: 'big' };
    const response = await sendMedia(body, { 'idempotency-key': 'big-image-1' });
    expect(response.statusCode, response.body).toBe(201);
    expect(commands).toHaveLength(1);
    const command = commands[0]!;
    expect(command.body).toEqual({ sessionId: SESSION, to: '15551234567', mediaType: 'image', caption: 'big', media: { sha256: sha256Hex(image), size: image.length, mimetype: 'image/png' } });
    expect(JSON.stringify(command).length).toBeLessThan(2_000);
    // The key's hash is the client's own body, base64 included: a retry of it replays.
    expect(command.idempotency?.requestHash).toBe(idempotencyRequestHash('media', body));
    expect(Buffer.from((await blobs.get(sha256Hex(image)))!).equals(image)).toBe(true);
  });

  it('accepts plain base64 of exactly the image cap (5 MiB)', async () => {
    const image = png(IMAGE_CAP);
    const response = await sendMedia({ sessionId: SESSION, to: '15551234567', mediaType: 'image', media: image.toString('base64') });
    expect(response.statusCode, response.body).toBe(201);
    expect(commands[0]?.body.media).toEqual({ sha256: sha256Hex(image), size: IMAGE_CAP, mimetype: null });
  });

  it('passes a media URL on untouched and stores nothing', async () => {
    const response = await sendMedia({ sessionId: SESSION, to: '15551234567', mediaType: 'document', media: 'https://example.com/report.pdf', filename: 'report.pdf' });
    expect(response.statusCode, response.body).toBe(201);
    expect(commands[0]?.body.media).toBe('https://example.com/report.pdf');
  });

  it('answers 422 MEDIA_TOO_LARGE with the limit one byte over the image cap, asks messaging nothing and stores nothing', async () => {
    const image = png(IMAGE_CAP + 1);
    const response = await sendMedia({ sessionId: SESSION, to: '15551234567', mediaType: 'image', media: image.toString('base64') });
    expect(response.statusCode).toBe(422);
    expect(response.json().error).toEqual({
      code: 'MEDIA_TOO_LARGE',
      message: `The media exceeds the 5 MiB (${IMAGE_CAP}-byte) limit for image: it has ${IMAGE_CAP + 1} bytes.`,
      details: { mediaType: 'image', limit: IMAGE_CAP, size: IMAGE_CAP + 1 },
      requestId: response.headers['x-request-id'],
    });
    expect(commands).toHaveLength(0);
    expect(await blobs.get(sha256Hex(image))).toBeNull();
  });

  it('answers 503 with Retry-After when the media cannot be stored, and asks messaging nothing', async () => {
    await app.close();
    await bus.close();
    const notAFolder = join(folder, 'a-file');
    writeFileSync(notAFolder, 'x');
    await start(new FolderBlobStore(join(notAFolder, 'media')));
    const response = await sendMedia({ sessionId: SESSION, to: '15551234567', mediaType: 'image', media: png(1024).toString('base64') });
    expect(response.statusCode).toBe(503);
    expect(response.json().error.code).toBe('SERVICE_UNAVAILABLE');
    expect(response.headers['retry-after']).toBeDefined();
    expect(commands).toHaveLength(0);
  });
});

describe('request bodies over the 24 MiB limit', () => {
  let bus: InProcessBus;
  let app: FastifyInstance;
  let apiKey: string;
  beforeAll(async () => {
    ({ bus } = await quotaBus());
    app = await startGateway(bus);
    ({ apiKey } = await createAccount(app));
  });
  afterAll(async () => {
    await app.close();
    await bus.close();
  });

  const oversized = () => JSON.stringify({ sessionId: SESSION, to: '15551234567', mediaType: 'document', media: 'A'.repeat(BODY_LIMIT_BYTES) });

  it('413 PAYLOAD_TOO_LARGE naming the limit, with limit and declared size in details', async () => {
    const payload = oversized();
    const response = await app.inject({ method: 'POST', url: '/v1/messages/media', headers: { ...bearer(apiKey), 'content-type': 'application/json' }, payload });
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
      message: expect.stringContaining('24 MiB'),
      details: { limit: BODY_LIMIT_BYTES, size: Buffer.byteLength(payload) },
    });
  });

  it('413 with the limit for a body without Content-Length, cut off once it crosses the limit', async () => {
    const response = await app.inject({
      method: 'POST', url: '/v1/messages/media', headers: { ...bearer(apiKey), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      payload: Readable.from([oversized()]),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json().error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('24 MiB'), details: { limit: BODY_LIMIT_BYTES } });
  });
});
