import { createHash } from 'node:crypto';
import { openBlobStore } from '@switchboard/blob-store';
import { QuotaSubjects, SessionsSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, buildServices, eventually, newMessageId, uniquePhone } from './support/cluster.js';
import { lookup, send, sent, statusBecomes } from './support/sends.js';
import { MediaServer, PDF, PNG_1PX } from './media-fixtures.js';

// End to end at service level: real quota and sessions processes, real Baileys against the
// emulator, messaging in this process, all over a private NATS. What a contact receives is read
// back from the emulator; statuses from the lookup the gateway serves.

let cluster: Cluster;
let media: MediaServer;
let accountId: string;
let sessionId: string;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const BIG_PNG = Buffer.concat([PNG_1PX, Buffer.alloc(700 * 1024, 7)]);

beforeAll(async () => {
  buildServices();
  media = await MediaServer.start((req, res) => {
    if (req.url === '/photo.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(PNG_1PX);
    if (req.url === '/big.png') return void res.writeHead(200, { 'content-type': 'image/png' }).end(BIG_PNG);
    res.writeHead(404).end();
  });
  cluster = await Cluster.start();
  accountId = await cluster.account('enterprise');
  sessionId = await cluster.connectedSession(accountId, uniquePhone());
}, 240_000);
afterAll(async () => {
  await cluster?.close();
  await media?.close();
});

/** The one message `contact` received, once it arrived. */
async function receivedBy(contact: string, count = 1) {
  return eventually(async () => {
    const messages = await cluster.control.messages(contact);
    return messages.length >= count ? messages : undefined;
  });
}

describe('each message type reaches the contact exactly, then is delivered, then read', () => {
  it('text: sent, delivered, read; deliveredAt and readAt null until they happen', async () => {
    const contact = uniquePhone();
    await cluster.control.setContact(contact, { deliverAfterMs: 300, readAfterMs: 1500 });
    const reply = await sent(cluster, 'text', accountId, { sessionId, to: contact, text: 'Hello from Switchboard 👋' });
    expect(reply).toMatchObject({ status: 'sent', messageId: expect.stringMatching(/^msg_/) });
    expect(reply.usage).toMatchObject({ limit: null, remaining: null });
    const first = await lookup(cluster, accountId, reply.messageId);
    expect(first).toMatchObject({ status: 'sent', deliveredAt: null, readAt: null, sessionId, to: contact, type: 'text', timestamp: reply.timestamp });
    const [received] = await receivedBy(contact);
    expect(received).toMatchObject({ type: 'text', text: 'Hello from Switchboard 👋' });
    const delivered = await statusBecomes(cluster, accountId, reply.messageId, 'delivered');
    expect(delivered.readAt).toBeNull();
    expect(Date.parse(delivered.deliveredAt!)).toBeGreaterThanOrEqual(Date.parse(reply.timestamp));
    const read = await statusBecomes(cluster, accountId, reply.messageId, 'read');
    expect(read.deliveredAt).toBe(delivered.deliveredAt);
    expect(Date.parse(read.readAt!)).toBeGreaterThanOrEqual(Date.parse(read.deliveredAt!));
    // Each fact names its cause: the send is caused by the acceptance, each receipt by the network's report.
    const facts = await cluster.messageStream(reply.messageId);
    const networkMessageId = (facts.find((e) => e.type === 'MessageSent')?.data as { networkMessageId: string }).networkMessageId;
    expect(facts.map((e) => [e.type, e.metadata['causationId']])).toEqual([
      ['MessageAccepted', facts[0]!.metadata['correlationId']],
      ['MessageSent', `message-${reply.messageId}@0`],
      ['MessageDelivered', `chat-receipt:delivered:${networkMessageId}`],
      ['MessageRead', `chat-receipt:read:${networkMessageId}`],
    ]);
  });

  it('a quoted reply names the quoted message as the network knows it', async () => {
    const contact = uniquePhone();
    const original = await sent(cluster, 'text', accountId, { sessionId, to: contact, text: 'original' });
    await sent(cluster, 'text', accountId, { sessionId, to: contact, text: 'reply', quotedMessageId: original.messageId });
    const [first, second] = await receivedBy(contact, 2);
    expect(second).toMatchObject({ text: 'reply', quotedId: first!.id });
  });

  it('location', async () => {
    const contact = uniquePhone();
    const reply = await sent(cluster, 'location', accountId, { sessionId, to: contact, latitude: 48.8584, longitude: 2.2945, name: 'Eiffel Tower', address: 'Champ de Mars, Paris' });
    const [received] = await receivedBy(contact);
    expect(received).toMatchObject({ type: 'location', latitude: 48.8584, longitude: 2.2945, name: 'Eiffel Tower', address: 'Champ de Mars, Paris' });
    await statusBecomes(cluster, accountId, reply.messageId, 'read');
  });

  it('buttons', async () => {
    const contact = uniquePhone();
    const buttons = [{ id: 'yes', text: 'Yes please' }, { id: 'no', text: 'No thanks' }];
    await sent(cluster, 'buttons', accountId, { sessionId, to: contact, text: 'Confirm?', buttons, footer: 'Reply below' });
    const [received] = await receivedBy(contact);
    expect(received).toMatchObject({ type: 'buttons', text: 'Confirm?', buttons, footer: 'Reply below' });
  });

  it('an image from a URL arrives byte for byte (by sha256) and echoes mediaType', async () => {
    const contact = uniquePhone();
    const reply = await sent(cluster, 'media', accountId, { sessionId, to: contact, mediaType: 'image', media: media.url('/photo.png'), caption: 'a pixel' });
    expect(reply).toMatchObject({ status: 'sent', mediaType: 'image' });
    const [received] = await receivedBy(contact);
    expect(received).toMatchObject({ type: 'image', sha256: sha256(PNG_1PX), caption: 'a pixel', mimetype: 'image/png' });
    await statusBecomes(cluster, accountId, reply.messageId, 'read');
  });

  it('a document sent inline (stored by the gateway, referenced on the bus) keeps its filename', async () => {
    const contact = uniquePhone();
    const blobs = await openBlobStore({ dataDir: cluster.dataDir, natsUrl: cluster.nats.url });
    const stored = { sha256: await blobs.put(PDF), size: PDF.length, mimetype: 'application/pdf' };
    await blobs.close();
    await sent(cluster, 'media', accountId, { sessionId, to: contact, mediaType: 'document', media: stored, filename: 'report.pdf' });
    const [received] = await receivedBy(contact);
    expect(received).toMatchObject({ type: 'document', sha256: sha256(PDF), filename: 'report.pdf', mimetype: 'application/pdf' });
  });

  it('a large image travels through the blob store (too big to go inline on the bus)', async () => {
    const contact = uniquePhone();
    await sent(cluster, 'media', accountId, { sessionId, to: contact, mediaType: 'image', media: media.url('/big.png') });
    const [received] = await receivedBy(contact);
    expect(received).toMatchObject({ type: 'image', sha256: sha256(BIG_PNG) });
  });
});

describe('refusals', () => {
  it('a recipient not on the network: 422, failed in the lookup, its unit refunded', async () => {
    const account = await cluster.account('basic');
    const contact = uniquePhone();
    await cluster.control.setContact(contact, { onNetwork: false });
    const outcome = await send(cluster, 'text', account, { sessionId: await cluster.connectedSession(account, uniquePhone()), to: contact, text: 'hi' });
    expect(outcome).toMatchObject({ ok: false, code: 'RECIPIENT_NOT_ON_CHAT_NETWORK' });
    await eventually(async () => ((await cluster.call(QuotaSubjects.accounts.get, { accountId: account })).messagesToday === 0 ? true : undefined));
    expect(await cluster.control.messages(contact)).toEqual([]);
  });

  it('a session that is not connected: 409 SESSION_NOT_CONNECTED, nothing sent', async () => {
    const { sessionId: pendingSession } = await cluster.call(SessionsSubjects.create, { accountId });
    const contact = uniquePhone();
    const outcome = await send(cluster, 'text', accountId, { sessionId: pendingSession, to: contact, text: 'hi' });
    expect(outcome).toMatchObject({ ok: false, code: 'SESSION_NOT_CONNECTED' });
    expect(await cluster.control.messages(contact)).toEqual([]);
  });

  it('unknown and foreign message ids are MESSAGE_NOT_FOUND, in the lookup and as quotedMessageId', async () => {
    const mine = await sent(cluster, 'text', accountId, { sessionId, to: uniquePhone(), text: 'mine' });
    const stranger = await cluster.account('basic');
    expect(await lookup(cluster, stranger, mine.messageId)).toBe('MESSAGE_NOT_FOUND');
    expect(await lookup(cluster, accountId, newMessageId())).toBe('MESSAGE_NOT_FOUND');
    const contact = uniquePhone();
    const quotingUnknown = await send(cluster, 'text', accountId, { sessionId, to: contact, text: 'x', quotedMessageId: newMessageId() });
    expect(quotingUnknown).toMatchObject({ ok: false, code: 'MESSAGE_NOT_FOUND' });
    const strangerSession = await cluster.connectedSession(stranger, uniquePhone());
    const quotingForeign = await send(cluster, 'text', stranger, { sessionId: strangerSession, to: contact, text: 'x', quotedMessageId: mine.messageId });
    expect(quotingForeign).toMatchObject({ ok: false, code: 'MESSAGE_NOT_FOUND' });
    expect(await cluster.control.messages(contact)).toEqual([]);
  });

  it('the daily limit: of 55 simultaneous sends on the free plan exactly 50 succeed; the rest get 429 with figures', async () => {
    const account = await cluster.account('free');
    const session = await cluster.connectedSession(account, uniquePhone());
    const contact = uniquePhone();
    await cluster.control.setContact(contact, { deliverAfterMs: null, readAfterMs: null });
    const outcomes = await Promise.all(Array.from({ length: 55 }, (_, i) => send(cluster, 'text', account, { sessionId: session, to: contact, text: `n${i}` })));
    const accepted = outcomes.filter((o) => o.ok);
    const refused = outcomes.filter((o) => !o.ok);
    expect(accepted).toHaveLength(50);
    expect(refused).toHaveLength(5);
    for (const r of refused) expect(r).toMatchObject({ code: 'DAILY_MESSAGE_LIMIT_REACHED', details: { limit: 50, used: 50, resetsAt: expect.any(String) } });
    const remaining = accepted.map((o) => (o.ok ? o.data.usage?.remaining : undefined)).sort((a, b) => (a ?? 0) - (b ?? 0));
    expect(remaining[0]).toBe(0);
    expect(await receivedBy(contact, 50)).toHaveLength(50);
  });
});

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body and sends nothing again', async () => {
    const contact = uniquePhone();
    const body = { sessionId, to: contact, text: 'only once' };
    const key = `key-${newMessageId()}`;
    const first = await sent(cluster, 'text', accountId, body, key);
    const again = await sent(cluster, 'text', accountId, { text: 'only once', to: contact, sessionId }, key);
    expect(again).toMatchObject({ messageId: first.messageId, status: 'sent', timestamp: first.timestamp, replayed: true });
    await receivedBy(contact);
    await new Promise((r) => setTimeout(r, 500));
    expect(await cluster.control.messages(contact)).toHaveLength(1);
  });

  it('answers 409 for the same key with another body', async () => {
    const key = `key-${newMessageId()}`;
    await sent(cluster, 'text', accountId, { sessionId, to: uniquePhone(), text: 'first' }, key);
    expect(await send(cluster, 'text', accountId, { sessionId, to: uniquePhone(), text: 'second' }, key)).toMatchObject({ ok: false, code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('sends once when the same request races itself with one key', async () => {
    const contact = uniquePhone();
    const key = `key-${newMessageId()}`;
    const replies = await Promise.all(Array.from({ length: 5 }, () => sent(cluster, 'text', accountId, { sessionId, to: contact, text: 'raced' }, key)));
    expect(new Set(replies.map((r) => r.messageId)).size).toBe(1);
    await receivedBy(contact);
    await new Promise((r) => setTimeout(r, 500));
    expect(await cluster.control.messages(contact)).toHaveLength(1);
  });

  it('keys are per account: another account may use the same key', async () => {
    const key = `key-${newMessageId()}`;
    const other = await cluster.account('basic');
    const otherSession = await cluster.connectedSession(other, uniquePhone());
    const a = await sent(cluster, 'text', accountId, { sessionId, to: uniquePhone(), text: 'a' }, key);
    const b = await sent(cluster, 'text', other, { sessionId: otherSession, to: uniquePhone(), text: 'a' }, key);
    expect(b.messageId).not.toBe(a.messageId);
  });
});
