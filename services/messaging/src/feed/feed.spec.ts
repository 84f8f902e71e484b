import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { messageStream } from '@switchboard/contracts';
import type { FeedReply, MessageEvent, MessageId } from '@switchboard/contracts';
import { SqliteEventStore } from '@switchboard/eventstore';
import { eventMetadata, toNewEvent } from '@switchboard/service-kit';
import { ContentKeys } from '../contents/content-keys.js';
import { MessageFacts } from '../contents/message-facts.js';
import { SqliteDataKeyStore } from '../contents/sqlite-data-key-store.js';
import { messageFeed } from './feed.js';

const ACC = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const SES = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const OUT = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K' as MessageId;
const IN = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9M' as MessageId;
const at = (s: number) => `2026-11-21T10:00:0${s}.000Z`;

const outbound: MessageEvent[] = [
  {
    type: 'MessageAccepted', version: 2,
    data: { messageId: OUT, accountId: ACC, sessionId: SES, to: '15551234567', content: { type: 'text', text: 'Your order #42 has shipped' }, quotedMessageId: null, usageDay: '2026-11-21', acceptedAt: at(0), idempotencyKeyHash: null },
  },
  { type: 'MessageSent', version: 1, data: { messageId: OUT, networkMessageId: 'N1', sentAt: at(1) } },
  { type: 'MessageDelivered', version: 1, data: { messageId: OUT, deliveredAt: at(2) } },
  { type: 'MessageRead', version: 1, data: { messageId: OUT, readAt: at(3) } },
];
const received: MessageEvent = {
  type: 'MessageReceived', version: 1,
  data: {
    messageId: IN, accountId: ACC, sessionId: SES, networkMessageId: '3EB0AA', from: '15551234567', to: '15557654321',
    sentAt: at(4), receivedAt: at(5), content: { type: 'text', text: 'Thanks!' }, quotedNetworkId: null, quotedMessageId: null,
  },
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'sb-message-feed-'));
  dirs.push(dir);
  const store = new SqliteEventStore(join(dir, 'events.sqlite'));
  const keys = new ContentKeys(new SqliteDataKeyStore(join(dir, 'data-keys.sqlite')), randomBytes(32));
  await keys.sealingKey(ACC);
  const facts = new MessageFacts(keys);
  const write = async (id: MessageId, events: MessageEvent[]) => {
    const metadata = eventMetadata({ accountId: ACC, now: new Date() });
    let revision = (await store.readStream(messageStream(id))).length - 1;
    for (const event of events) {
      await store.append(messageStream(id), [toNewEvent(facts.encode(event), metadata)], { expectedRevision: revision < 0 ? 'no_stream' : BigInt(revision) });
      revision += 1;
    }
  };
  return { store, keys, facts, write };
}

/** Every public event from `after` on, `limit` source events per page. */
async function readAll(feed: ReturnType<typeof messageFeed>, after: string | null, limit: number) {
  const told: FeedReply['events'] = [];
  for (let page = await feed({ after, limit }); page.head !== null; page = await feed({ after: page.head, limit })) told.push(...page.events);
  return told;
}

describe('the messaging feed (sb.v1.messaging.feed)', () => {
  it('tells sent, delivered and read with the session, and a received message with its content, opening only that content', async () => {
    const { store, keys, facts, write } = await fixture();
    await write(OUT, outbound.slice(0, 2));
    await write(IN, [received]);
    await write(OUT, outbound.slice(2));
    const opens = vi.spyOn(keys, 'open');

    // Two source events per page: the message's later facts come on pages after its acceptance.
    const told = await readAll(messageFeed(store, facts), null, 2);

    expect(told.map(({ event }) => [event.type, (event.data as { status?: string }).status])).toEqual([
      ['message.status', 'sent'], ['message.received', undefined], ['message.status', 'delivered'], ['message.status', 'read'],
    ]);
    expect(told.every(({ accountId, event }) => accountId === ACC && (event.data as { sessionId: string }).sessionId === SES)).toBe(true);
    expect(told[1]!.event.data).toMatchObject({ messageId: IN, text: 'Thanks!', direction: 'in' });
    // No public event carries an outbound content: only the received one was decrypted, once.
    expect(opens).toHaveBeenCalledTimes(1);
    await store.close();
  });

  it('a reader that starts after the acceptance still knows the session and never tells a status twice', async () => {
    const { store, facts, write } = await fixture();
    await write(OUT, [...outbound, outbound[2]!]);
    const acceptance = (await store.readStream(messageStream(OUT)))[0]!.position.toString();

    const told = await readAll(messageFeed(store, facts), acceptance, 1);

    expect(told.map(({ event }) => event.data)).toEqual([
      { messageId: OUT, sessionId: SES, status: 'sent', timestamp: at(1), error: null },
      { messageId: OUT, sessionId: SES, status: 'delivered', timestamp: at(2), error: null },
      { messageId: OUT, sessionId: SES, status: 'read', timestamp: at(3), error: null },
    ]);
    await store.close();
  });
});
