import { MessagingSubjects, SessionsSubjects, messageStream } from '@switchboard/contracts';
import type { MessageEvent } from '@switchboard/contracts';
import { eventMetadata, loadConfig, openServiceEventStore, toNewEvent } from '@switchboard/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, buildServices, eventually, newMessageId, uniquePhone } from './support/cluster.js';
import { lookup, sent, statusBecomes } from './support/sends.js';

// A crash between any two steps leaves streams that say where it stopped; the next start finishes
// from there. Each case writes the streams a crash would have left, then starts messaging again.

let cluster: Cluster;
let accountId: string;
let sessionId: string;
beforeAll(async () => {
  buildServices();
  cluster = await Cluster.start();
  accountId = await cluster.account('enterprise');
  sessionId = await cluster.connectedSession(accountId, uniquePhone());
}, 240_000);
afterAll(async () => {
  await cluster?.close();
});

const T = () => new Date().toISOString();

function accepted(messageId: string, to: string, text: string): MessageEvent {
  return {
    type: 'MessageAccepted', version: 2,
    data: { messageId, accountId, sessionId, to, content: { type: 'text', text }, quotedMessageId: null, idempotencyKeyHash: null, usageDay: T().slice(0, 10), acceptedAt: T() },
  };
}

/** Appends what a crashed process had written, with messaging stopped. */
async function leaveStreams(streams: Record<string, MessageEvent[]>): Promise<void> {
  const store = openServiceEventStore('messaging', loadConfig(cluster.env));
  try {
    for (const [messageId, events] of Object.entries(streams)) {
      const metadata = eventMetadata({ accountId, now: new Date() });
      await store.append(messageStream(messageId), events.map((e) => toNewEvent(e, metadata)), { expectedRevision: 'no_stream' });
    }
  } finally {
    await store.close();
  }
}

async function restartMessaging(options: Cluster['options']['messaging'] = {}): Promise<void> {
  await cluster.messaging?.close();
  cluster.options.messaging = options;
  await cluster.startMessaging();
  await cluster.untilReady();
}

describe('recovery on start', () => {
  it('delivers a message accepted but never handed to sessions, once', async () => {
    const contact = uniquePhone();
    const messageId = newMessageId();
    await cluster.messaging?.close();
    await leaveStreams({ [messageId]: [accepted(messageId, contact, 'accepted, then the crash')] });
    await restartMessaging();
    await statusBecomes(cluster, accountId, messageId, 'read');
    expect((await cluster.control.messages(contact)).map((m) => m.text)).toEqual(['accepted, then the crash']);
  });

  it('does not send twice when sessions had sent it and the reply was lost', async () => {
    const contact = uniquePhone();
    const messageId = newMessageId();
    await cluster.messaging?.close();
    // The crashed process had asked sessions, which sent it; its answer never got recorded.
    const first = await cluster.call(SessionsSubjects.send, { accountId, sessionId, messageId, to: contact, content: { type: 'text', text: 'sent before the crash' } });
    await leaveStreams({ [messageId]: [accepted(messageId, contact, 'sent before the crash')] });
    await restartMessaging();
    await statusBecomes(cluster, accountId, messageId, 'read');
    const received = await cluster.control.messages(contact);
    expect(received.map((m) => m.id)).toEqual([first.networkMessageId]);
  });

  it('refunds a failure whose refund was not recorded yet, and says so in the stream', async () => {
    const messageId = newMessageId();
    await cluster.messaging?.close();
    await leaveStreams({
      [messageId]: [
        accepted(messageId, uniquePhone(), 'failed'),
        { type: 'MessageFailed', version: 1, data: { messageId, code: 'RECIPIENT_NOT_ON_CHAT_NETWORK', message: 'not on the network', refundable: true, failedAt: T() } },
      ],
    });
    await restartMessaging();
    const store = openServiceEventStore('messaging', loadConfig(cluster.env));
    const types = await eventually(async () => {
      const events = (await store.readStream(messageStream(messageId))).map((e) => e.type);
      return events.includes('MessageQuotaRefunded') ? events : undefined;
    });
    await store.close();
    expect(types).toEqual(['MessageAccepted', 'MessageFailed', 'MessageQuotaRefunded']);
    expect(await lookup(cluster, accountId, messageId)).toMatchObject({ status: 'failed', error: { code: 'RECIPIENT_NOT_ON_CHAT_NETWORK' } });
  });
});

describe('past the send deadline', () => {
  it('answers pending (the gateway says 202) and the delivery finishes in the background', async () => {
    await restartMessaging({ config: { ...loadConfig(cluster.env), sendDeadlineMs: 1 } });
    const contact = uniquePhone();
    const reply = await sent(cluster, 'text', accountId, { sessionId, to: contact, text: 'slow ack' });
    expect(reply.status).toBe('pending');
    await eventually(async () => {
      const view = await lookup(cluster, accountId, reply.messageId);
      return typeof view !== 'string' && ['sent', 'delivered', 'read'].includes(view.status) ? view : undefined;
    });
    await eventually(async () => ((await cluster.control.messages(contact)).length === 1 ? true : undefined));
    await restartMessaging();
  });
});

describe('receipts', () => {
  it('are idempotent and never move a status backwards', async () => {
    const contact = uniquePhone();
    await cluster.control.setContact(contact, { deliverAfterMs: null, readAfterMs: null });
    const reply = await sent(cluster, 'text', accountId, { sessionId, to: contact, text: 'receipts' });
    const [received] = await eventually(async () => {
      const messages = await cluster.control.messages(contact);
      return messages.length > 0 ? messages : undefined;
    });
    const receipt = (kind: 'delivered' | 'read', at: string) => ({ accountId, sessionId, networkMessageId: received!.id, receipt: kind, at });
    const record = async (...receipts: ReturnType<typeof receipt>[]) => (await cluster.call(MessagingSubjects.recordReceipts, { accountId, receipts })).results;
    // Together, in one call: applied in the order given (delivered, then read), each answered in that order.
    expect(await record(receipt('delivered', '2030-01-01T00:00:01.000Z'), receipt('read', '2030-01-01T00:00:02.000Z'))).toEqual([
      { messageId: reply.messageId, applied: true },
      { messageId: reply.messageId, applied: true },
    ]);
    expect(await record(receipt('read', '2030-01-01T00:00:03.000Z'))).toEqual([{ messageId: reply.messageId, applied: false }]);
    expect(await record(receipt('delivered', '2030-01-01T00:00:04.000Z'))).toEqual([{ messageId: reply.messageId, applied: false }]);
    const view = await lookup(cluster, accountId, reply.messageId);
    expect(view).toMatchObject({ status: 'read', deliveredAt: expect.any(String), readAt: expect.any(String) });
  });

  it('match only the account and session that sent the message', async () => {
    const stranger = await cluster.account('basic');
    const reply = await sent(cluster, 'text', accountId, { sessionId, to: uniquePhone(), text: 'mine' });
    const view = await statusBecomes(cluster, accountId, reply.messageId, 'read');
    expect(view.readAt).not.toBeNull();
    const foreign = await cluster.call(MessagingSubjects.recordReceipts, { accountId: stranger, receipts: [{ accountId: stranger, sessionId, networkMessageId: 'NOT-OURS', receipt: 'read', at: T() }] });
    expect(foreign).toEqual({ results: [{ messageId: null, applied: false }] });
    // A delivery and a read of a message we never sent (the phone's own), together: looked up once,
    // answered "not ours" well before the 5 s sessions waits for the call.
    const startedAt = Date.now();
    const neverSent = (receipt: 'delivered' | 'read') => ({ accountId, sessionId, networkMessageId: 'NEVER-SENT', receipt, at: T() });
    const pair = await cluster.call(MessagingSubjects.recordReceipts, { accountId, receipts: [neverSent('delivered'), neverSent('read')] });
    expect(pair).toEqual({ results: [{ messageId: null, applied: false }, { messageId: null, applied: false }] });
    expect(Date.now() - startedAt).toBeLessThan(5_000);
  });
});
