import { createHash } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { openBlobStore } from '@switchboard/blob-store';
import { MessagingSubjects, accountContentsStream, messageStream } from '@switchboard/contracts';
import type { HistoryItem, MessageEvent } from '@switchboard/contracts';
import { SqliteEventStore, verifyStream } from '@switchboard/eventstore';
import type { RecordedEvent } from '@switchboard/eventstore';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventMetadata, loadConfig, openServiceEventStore, toNewEvent } from '@switchboard/service-kit';
import { KvDataKeyStore } from '../src/contents/kv-data-key-store.js';
import { MessageFacts } from '../src/contents/message-facts.js';
import { openContentKeys } from '../src/contents/open-content-keys.js';
import { eraseAccountContents } from '../src/erasure/erase-on-stores.js';
import { Cluster, buildServices, eventually, newMessageId, uniquePhone } from './support/cluster.js';
import { sent, statusBecomes } from './support/sends.js';
import { MediaServer, PNG_1PX } from './media-fixtures.js';

// Crypto-shredding (issue 16) in the distributed mode: the data keys in the JetStream KV bucket,
// the media in the NATS object store, messaging in this process beside real quota and sessions.

let cluster: Cluster;
let media: MediaServer;
let accountId: string;
let sessionId: string;
const linked = uniquePhone();
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  buildServices();
  media = await MediaServer.start((req, res) => {
    if (req.url === '/photo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG_1PX);
    res.writeHead(404).end();
  });
  cluster = await Cluster.start();
  accountId = await cluster.account('enterprise');
  sessionId = await cluster.connectedSession(accountId, linked);
}, 240_000);
afterAll(async () => {
  await cluster?.close();
  await media?.close();
});

async function history(): Promise<HistoryItem[]> {
  return (await cluster.call(MessagingSubjects.history, { accountId, limit: 50 })).messages;
}

/** Every stored event of the messaging store, as an auditor reads the file. */
async function storedEvents(): Promise<RecordedEvent[]> {
  const store = new SqliteEventStore(`${cluster.dataDir}/messaging/events.sqlite`);
  try {
    return await store.readAll({ category: 'message' });
  } finally {
    await store.close();
  }
}

describe('erasing an account\'s message contents', () => {
  it('leaves contents unreadable and media gone, while ids, statuses and the hash chain stay', async () => {
    const contact = uniquePhone();
    await cluster.control.setContact(contact, { deliverAfterMs: 50, readAfterMs: 100 });
    const text = await sent(cluster, 'text', accountId, { sessionId, to: contact, text: 'Your parcel code is 7731' });
    const image = await sent(cluster, 'media', accountId, { sessionId, to: contact, mediaType: 'image', media: media.url('/photo.png'), caption: 'the parcel' });
    const place = await sent(cluster, 'location', accountId, { sessionId, to: contact, latitude: 52.379, longitude: 4.9, name: 'Pickup point Zuid', address: '5 Kade' });
    for (const { messageId } of [text, image, place]) await statusBecomes(cluster, accountId, messageId, 'read');
    await cluster.control.inbound(contact, linked, 'my door code is 4411');
    const inbound = await eventually(async () => (await history()).find((m) => m.direction === 'in'));

    // Stored sealed from the start: no content in the clear in the store; the history opens them.
    const before = await storedEvents();
    expect(JSON.stringify(before.map((e) => e.data))).not.toMatch(/7731|the parcel|Pickup point|5 Kade|4411/);
    expect(before.find((e) => e.stream === `message-${text.messageId}` && e.revision === 0n)).toMatchObject({ type: 'MessageAccepted', metadata: { schemaVersion: 3 } });
    const shown = await history();
    expect(shown.find((m) => m.messageId === text.messageId)).toMatchObject({ text: 'Your parcel code is 7731' });
    // What sessions sends again when the contact's phone asks for it (a retry receipt), by network id.
    const { networkMessageId } = before.find((e) => e.stream === `message-${text.messageId}` && e.type === 'MessageSent')!.data as { networkMessageId: string };
    const resend = { accountId, sessionId, networkMessageId };
    expect((await cluster.call(MessagingSubjects.sentContent, resend)).message).toMatchObject({ messageId: text.messageId, to: contact, content: { type: 'text', text: 'Your parcel code is 7731' } });
    expect(await cluster.call(MessagingSubjects.sentContent, { ...resend, sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R' })).toEqual({ message: null });
    expect(shown.find((m) => m.messageId === place.messageId)).toMatchObject({ location: { name: 'Pickup point Zuid', address: '5 Kade' } });
    const blobs = await openBlobStore({ dataDir: cluster.dataDir, natsUrl: cluster.nats.url });
    try {
      expect(await blobs.get(sha256(PNG_1PX))).not.toBeNull();

      const erased = await cluster.call(MessagingSubjects.eraseContents, { accountId });
      expect(erased).toEqual({ accountId, erasedAt: expect.any(String), keysDestroyed: 1, blobsDeleted: 1 });

      // The stored events are exactly as they were, and each stream's chain still verifies.
      const after = await storedEvents();
      expect(after.slice(0, before.length)).toEqual(before);
      const streams = new Map<string, RecordedEvent[]>();
      for (const event of after) streams.set(event.stream, [...(streams.get(event.stream) ?? []), event]);
      for (const events of streams.values()) expect(verifyStream(events).findings).toEqual([]);
      expect(streams.get(accountContentsStream(accountId))?.map((e) => e.type)).toEqual(['MessageContentsErased']);

      // Statuses, ids and times stay; every content reads [erased], in and out.
      for (const { messageId, timestamp } of [text, image, place]) {
        expect(await cluster.call(MessagingSubjects.get, { accountId, messageId })).toMatchObject({ messageId, status: 'read', timestamp, direction: 'out' });
      }
      const items = await history();
      expect(items).toHaveLength(4);
      for (const item of items) expect(item).toMatchObject({ text: '[erased]', erased: true });
      expect(items.map((m) => [m.type, m.status ?? 'in'])).toEqual(expect.arrayContaining([['text', 'read'], ['media', 'read'], ['location', 'read'], ['text', 'in']]));
      expect(items.some((m) => m.media !== undefined || m.location !== undefined)).toBe(false);
      expect(await cluster.call(MessagingSubjects.get, { accountId, messageId: inbound.messageId })).toMatchObject({ direction: 'in', text: '[erased]', erased: true, from: contact });
      await expect(cluster.call(MessagingSubjects.media, { accountId, messageId: image.messageId })).rejects.toMatchObject({ code: 'MEDIA_NOT_FOUND' });
      // Erased contents are not sent again, whoever asks.
      expect(await cluster.call(MessagingSubjects.sentContent, resend)).toEqual({ message: null });
      expect(await blobs.get(sha256(PNG_1PX))).toBeNull();
    } finally {
      await blobs.close();
    }

    // The key is gone from the bucket, not marked.
    const nats = await connect({ servers: cluster.nats.url });
    try {
      expect(await (await KvDataKeyStore.open(nats)).current(accountId)).toBeUndefined();
    } finally {
      await nats.close();
    }
  }, 60_000);

  it('is idempotent, and the account keeps working: what is sent afterwards is readable', async () => {
    const first = await cluster.call(MessagingSubjects.eraseContents, { accountId });
    const again = await cluster.call(MessagingSubjects.eraseContents, { accountId });
    expect(again).toEqual({ ...first, keysDestroyed: 0, blobsDeleted: 0 });
    const contact = uniquePhone();
    const later = await sent(cluster, 'text', accountId, { sessionId, to: contact, text: 'after the erasure' });
    expect((await history()).find((m) => m.messageId === later.messageId)).toMatchObject({ text: 'after the erasure' });
    expect((await cluster.control.messages(contact))[0]).toMatchObject({ text: 'after the erasure' });
    // Erasing again takes the new key too.
    const second = await cluster.call(MessagingSubjects.eraseContents, { accountId });
    expect(second).toMatchObject({ keysDestroyed: 1 });
    expect(second.erasedAt > first.erasedAt).toBe(true);
    expect((await history()).find((m) => m.messageId === later.messageId)).toMatchObject({ text: '[erased]', erased: true });
  }, 60_000);

  it('fails a message still waiting for the network when its content is erased (CONTENT_ERASED), sending nothing', async () => {
    const other = await cluster.account('enterprise');
    const otherSession = await cluster.connectedSession(other, uniquePhone());
    const contact = uniquePhone();
    const messageId = newMessageId();
    const now = new Date().toISOString();
    const config = loadConfig(cluster.env);
    // What a crash right after the acceptance leaves: the message accepted (sealed), never handed to sessions.
    await cluster.messaging?.close();
    const keys = (await openContentKeys(config))!;
    const store = openServiceEventStore('messaging', config);
    try {
      await keys.keys.sealingKey(other);
      const accepted: MessageEvent = {
        type: 'MessageAccepted', version: 2,
        data: { messageId, accountId: other, sessionId: otherSession, to: contact, content: { type: 'text', text: 'never to be sent' }, quotedMessageId: null, idempotencyKeyHash: null, usageDay: now.slice(0, 10), acceptedAt: now },
      };
      await store.append(messageStream(messageId), [toNewEvent(new MessageFacts(keys.keys).encode(accepted), eventMetadata({ accountId: other, now: new Date() }))], { expectedRevision: 'no_stream' });
    } finally {
      await store.close();
      await keys.close();
    }
    // Erased on the stores while messaging is down (as the CLI does); recovery meets it at the next start.
    expect(await eraseAccountContents(config, other)).toMatchObject({ accountId: other, keysDestroyed: 1 });
    await cluster.startMessaging();
    await cluster.untilReady();
    const failed = await statusBecomes(cluster, other, messageId, 'failed');
    expect(failed.error).toMatchObject({ code: 'CONTENT_ERASED' });
    expect(await cluster.control.messages(contact)).toEqual([]);
  }, 60_000);
});
