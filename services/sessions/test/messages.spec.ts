import { createHash } from 'node:crypto';
import QRCode from 'qrcode';
import { ulid } from 'ulid';
import { openBlobStore } from '@switchboard/blob-store';
import { SessionsSubjects } from '@switchboard/contracts';
import type { RequestInput } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkMessageIdFor } from '../src/connections/network-message-id.js';
import { eventually, Harness, newAccountId, uniquePhone } from './harness.js';

type Deliver = RequestInput<typeof SessionsSubjects.send>;

let h: Harness;
let accountId: string;
let sessionId: string;
let contact: string;
beforeAll(async () => {
  h = await Harness.start();
  accountId = await h.quota.account();
  sessionId = await h.connectedSession(accountId, uniquePhone());
  contact = uniquePhone();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const messageId = () => `msg_${ulid()}`;

async function received(networkMessageId: string) {
  return eventually(async () => (await h.control.messages(contact)).find((m) => m.id === networkMessageId));
}

describe('sessions.send delivers each message type to the contact, exactly', () => {
  it('text, then a quoted reply to it', async () => {
    const sent = await h.call(SessionsSubjects.send, { accountId, sessionId, messageId: messageId(), to: contact, content: { type: 'text', text: 'Hello 👋' } });
    expect(Date.parse(sent.sentAt)).not.toBeNaN();
    expect(await received(sent.networkMessageId)).toMatchObject({ type: 'text', text: 'Hello 👋' });

    const quoted = { messageId: messageId(), networkMessageId: sent.networkMessageId };
    const reply = await h.call(SessionsSubjects.send, { accountId, sessionId, messageId: messageId(), to: contact, content: { type: 'text', text: 'Re' }, quoted });
    expect(await received(reply.networkMessageId)).toMatchObject({ text: 'Re', quotedId: sent.networkMessageId });
  });

  it('media from inline base64, with caption and sha256 of the bytes', async () => {
    const bytes = Buffer.from('%PDF-1.4\n% a tiny document\n');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const command: Deliver = {
      accountId, sessionId, messageId: messageId(), to: contact,
      content: { type: 'media', media: { mediaType: 'document', mimetype: 'application/pdf', sha256, size: bytes.length, filename: 'tiny.pdf' }, caption: 'the doc' },
      media: { kind: 'inline', base64: bytes.toString('base64') },
    };
    const sent = await h.call(SessionsSubjects.send, command);
    expect(await received(sent.networkMessageId)).toMatchObject({ type: 'document', sha256, filename: 'tiny.pdf', mimetype: 'application/pdf', caption: 'the doc' });
  });

  it('media from the blob store the messaging service wrote it to (an image)', async () => {
    const bytes = await QRCode.toBuffer('an image');
    const blobs = await openBlobStore({ dataDir: h.dataDir });
    const sha256 = await blobs.put(bytes);
    await blobs.close();
    const command: Deliver = {
      accountId, sessionId, messageId: messageId(), to: contact,
      content: { type: 'media', media: { mediaType: 'image', mimetype: 'image/png', sha256, size: bytes.length }, caption: 'a QR' },
      media: { kind: 'blob', sha256 },
    };
    const sent = await h.call(SessionsSubjects.send, command);
    expect(await received(sent.networkMessageId)).toMatchObject({ type: 'image', sha256, mimetype: 'image/png', caption: 'a QR' });
  });

  it('MEDIA_UNREACHABLE when the blob is no longer stored', async () => {
    const sha256 = createHash('sha256').update('never stored').digest('hex');
    const command: Deliver = {
      accountId, sessionId, messageId: messageId(), to: contact,
      content: { type: 'media', media: { mediaType: 'image', mimetype: 'image/png', sha256, size: 12 } },
      media: { kind: 'blob', sha256 },
    };
    await expect(h.call(SessionsSubjects.send, command)).rejects.toMatchObject({ code: 'MEDIA_UNREACHABLE' });
  });

  it('location', async () => {
    const content = { type: 'location' as const, latitude: 48.8584, longitude: 2.2945, name: 'Eiffel Tower', address: 'Paris' };
    const sent = await h.call(SessionsSubjects.send, { accountId, sessionId, messageId: messageId(), to: contact, content });
    expect(await received(sent.networkMessageId)).toMatchObject({ type: 'location', latitude: 48.8584, longitude: 2.2945, name: 'Eiffel Tower', address: 'Paris' });
  });

  it('buttons', async () => {
    const buttons = [{ id: 'yes', text: 'Yes' }, { id: 'no', text: 'No' }];
    const content = { type: 'buttons' as const, text: 'Confirm?', buttons, footer: 'Reply below' };
    const sent = await h.call(SessionsSubjects.send, { accountId, sessionId, messageId: messageId(), to: contact, content });
    expect(await received(sent.networkMessageId)).toMatchObject({ type: 'buttons', text: 'Confirm?', buttons, footer: 'Reply below' });
  });

  it('sends a repeated messageId only once', async () => {
    const command: Deliver = { accountId, sessionId, messageId: messageId(), to: contact, content: { type: 'text', text: 'once' } };
    const [first, second] = await Promise.all([h.call(SessionsSubjects.send, command), h.call(SessionsSubjects.send, command)]);
    expect(second).toEqual(first);
    await received(first.networkMessageId);
    // Shown once whatever happens (same network id); `repeats` tells whether it went out twice.
    expect((await h.control.messages(contact)).filter((m) => m.text === 'once')).toMatchObject([{ repeats: 0 }]);
    // Asked again once answered: from the sent log, nothing sent.
    expect(await h.call(SessionsSubjects.send, command)).toEqual(first);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await h.control.messages(contact)).filter((m) => m.text === 'once')).toMatchObject([{ repeats: 0 }]);
  });

  it('puts a message on the network under an id derived from its messageId, so a redelivery repeats it', async () => {
    const id = messageId();
    const sent = await h.call(SessionsSubjects.send, { accountId, sessionId, messageId: id, to: contact, content: { type: 'text', text: 'derived' } });
    expect(sent.networkMessageId).toBe(networkMessageIdFor(id));
    expect(await received(networkMessageIdFor(id))).toMatchObject({ text: 'derived' });
  });
});

describe('sends that cannot go out', () => {
  it('RECIPIENT_NOT_ON_CHAT_NETWORK for a number without an account', async () => {
    const stranger = uniquePhone();
    await h.control.setContact(stranger, { onNetwork: false });
    const command: Deliver = { accountId, sessionId, messageId: messageId(), to: stranger, content: { type: 'text', text: 'hi' } };
    await expect(h.call(SessionsSubjects.send, command)).rejects.toMatchObject({ code: 'RECIPIENT_NOT_ON_CHAT_NETWORK' });
  });

  it('SESSION_NOT_CONNECTED with the status for a pending session', async () => {
    const pending = (await h.call(SessionsSubjects.create, { accountId })).sessionId;
    const command: Deliver = { accountId, sessionId: pending, messageId: messageId(), to: contact, content: { type: 'text', text: 'hi' } };
    await expect(h.call(SessionsSubjects.send, command)).rejects.toMatchObject({ code: 'SESSION_NOT_CONNECTED', details: { status: 'pending' } });
  });

  it('SESSION_NOT_FOUND through another account or an unknown id', async () => {
    const content = { type: 'text' as const, text: 'hi' };
    await expect(h.call(SessionsSubjects.send, { accountId: newAccountId(), sessionId, messageId: messageId(), to: contact, content })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    await expect(
      h.call(SessionsSubjects.send, { accountId, sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', messageId: messageId(), to: contact, content }),
    ).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  });
});

describe('receipts and activity', () => {
  it('moves lastActivity on a send and forwards delivered/read receipts to messaging', async () => {
    const receipts: unknown[] = [];
    const subscription = await h.bus.subscribe('sb.v1.messaging.recordReceipts', (m) => {
      const batch = (m.data as { receipts: unknown[] }).receipts;
      receipts.push(...batch);
      return { results: batch.map(() => ({ messageId: null, applied: false })) };
    });
    try {
      const before = await h.call(SessionsSubjects.get, { accountId, sessionId });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const sent = await h.call(SessionsSubjects.send, { accountId, sessionId, messageId: messageId(), to: contact, content: { type: 'text', text: 'tracked' } });
      await eventually(() => (receipts.some((r) => (r as { receipt: string; networkMessageId: string }).receipt === 'read' && (r as { networkMessageId: string }).networkMessageId === sent.networkMessageId) ? true : undefined), 20_000);
      expect(receipts).toContainEqual({ accountId, sessionId, networkMessageId: sent.networkMessageId, receipt: 'delivered', at: expect.any(String) });
      const after = await eventually(async () => {
        const view = await h.call(SessionsSubjects.get, { accountId, sessionId });
        return Date.parse(view.lastActivity) > Date.parse(before.lastActivity) ? view : undefined;
      }, 20_000);
      expect(after.status).toBe('connected');
    } finally {
      await subscription.unsubscribe();
    }
  });
});
