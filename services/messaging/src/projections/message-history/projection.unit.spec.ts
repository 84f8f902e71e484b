import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import type { MessageEvent, StoredMessageEvent } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';
import { messageHistoryProjection } from './projection.js';

const ACC = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const SES = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const A = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K';
const B = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9M';
const IN = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9N';

function fixture(db = new DatabaseSync(':memory:'), name?: string) {
  const projection = messageHistoryProjection(db, name);
  let position = 0n;
  /** One call is one batch, as the runner applies them. */
  const apply = (...events: StoredMessageEvent[]) => {
    for (const e of events) {
      position += 1n;
      const recorded: RecordedEvent = {
        stream: `message-${(e.data as { messageId?: string }).messageId ?? (e.data as { accountId: string }).accountId}`, type: e.type, revision: 0n, position,
        data: e.data, metadata: { schemaVersion: e.version }, recordedAt: new Date(), id: String(position),
      };
      projection.apply(recorded);
    }
    projection.flush?.();
  };
  const tables = () => ['message_history', 'session_phone', 'message_reaction'].map((table) => db.prepare(`SELECT * FROM ${table} ORDER BY 1, 2`).all());
  return { apply, tables, db };
}

const accepted = (messageId: string): MessageEvent => ({
  type: 'MessageAccepted', version: 2,
  data: { messageId, accountId: ACC, sessionId: SES, to: '15551234567', content: { type: 'text', text: 'Your order has shipped.' }, quotedMessageId: null, idempotencyKeyHash: null, usageDay: '2026-11-21', acceptedAt: '2026-11-21T10:00:00.000Z' },
});
const sent = (messageId: string, from?: string): MessageEvent => ({
  type: 'MessageSent', version: 1, data: { messageId, networkMessageId: `NET-${messageId.slice(-2)}`, sentAt: '2026-11-21T10:00:01.000Z', ...(from ? { from } : {}) },
});
const received: MessageEvent = {
  type: 'MessageReceived', version: 1,
  data: { messageId: IN, accountId: ACC, sessionId: SES, networkMessageId: 'NET-IN', from: '15557654321', to: '15550000001', sentAt: '2026-11-21T10:00:02.000Z', receivedAt: '2026-11-21T10:00:02.500Z',
    content: { type: 'text', text: 'Thanks!' }, quotedNetworkId: null, quotedMessageId: null },
};
const reaction: MessageEvent = {
  type: 'MessageReactionReceived', version: 1,
  data: { messageId: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9P', accountId: ACC, sessionId: SES, networkMessageId: 'NET-R', from: '15557654321', to: '15550000001', sentAt: '2026-11-21T10:00:03.000Z', receivedAt: '2026-11-21T10:00:03.500Z',
    targetNetworkId: 'NET-9K', targetMessageId: A, emoji: '👍' },
};

describe('message history read model', () => {
  it('writes a batch as applying its facts one at a time would', () => {
    const facts: MessageEvent[] = [
      accepted(A), sent(A, '15550000002'), received, { type: 'MessageDelivered', version: 1, data: { messageId: A, deliveredAt: '2026-11-21T10:00:04.000Z' } },
      reaction, accepted(B), sent(B), sent('msg_01JD8Z7A1B2C3D4E5F6G7H8J9Q', '15550000003'),
    ];
    const oneByOne = fixture();
    for (const fact of facts) oneByOne.apply(fact);
    const together = fixture();
    together.apply(...facts);
    expect(together.tables()).toEqual(oneByOne.tables());
    const [history, phones] = together.tables();
    expect(history).toEqual([
      expect.objectContaining({ message_id: A, direction: 'out', network_message_id: 'NET-9K' }),
      expect.objectContaining({ message_id: B, direction: 'out', network_message_id: 'NET-9M' }),
      expect.objectContaining({ message_id: IN, direction: 'in', network_message_id: 'NET-IN' }),
    ]);
    // The linked number: last learned from the reaction it received.
    expect(phones).toEqual([{ session_id: SES, phone: '15550000001' }]);
  });

  it('replayed under a new name over its old table, gives a row it holds the network id its MessageSent names', () => {
    const { db, apply } = fixture();
    apply(accepted(A));
    const replay = fixture(db, 'message-history-v2');
    replay.apply(accepted(A), sent(A));
    expect(replay.tables()[0]).toEqual([expect.objectContaining({ message_id: A, network_message_id: 'NET-9K' })]);
  });
});

describe('erasing an account\'s contents in the history', () => {
  const K1 = 'dk_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
  const K2 = 'dk_01JD9Z5W3X4Y5Z6A7B8C9D0E1F';
  const sealedWith = (messageId: string, keyId: string): StoredMessageEvent => {
    const { data } = accepted(messageId) as Extract<MessageEvent, { type: 'MessageAccepted' }>;
    return { type: 'MessageAccepted', version: 3, data: { ...data, content: { type: 'text', keyId, sealed: 'AQ'.repeat(30) } } };
  };
  const erased = (keyIds: string[]): StoredMessageEvent => ({ type: 'MessageContentsErased', version: 1, data: { accountId: ACC, keyIds, erasedAt: '2026-11-21T11:00:00.000Z' } });
  const contents = (tables: unknown[][]) => Object.fromEntries((tables[0] as { message_id: string; content: string }[]).map((r) => [r.message_id, JSON.parse(r.content) as Record<string, unknown>]));

  it('keeps sealed contents sealed, and clears plain-text ones and those of the destroyed keys, not a newer key\'s', () => {
    const { apply, tables } = fixture();
    apply(accepted(A), received, sealedWith(B, K1));
    expect(contents(tables())[B]).toEqual({ type: 'text', keyId: K1, sealed: 'AQ'.repeat(30) });
    // The message sent after the erasure (sealed under the account's new key) is accepted in the same batch.
    apply(erased([K1]), sealedWith('msg_01JD8Z7A1B2C3D4E5F6G7H8J9P', K2));
    const after = contents(tables());
    expect([after[A], after[IN], after[B]]).toEqual([{ erased: true }, { erased: true }, { erased: true }]);
    expect(after['msg_01JD8Z7A1B2C3D4E5F6G7H8J9P']).toMatchObject({ keyId: K2 });
  });

  it('reaches rows the same batch accepted before the erasure', () => {
    const { apply, tables } = fixture();
    apply(accepted(A), erased([]));
    expect(contents(tables())[A]).toEqual({ erased: true });
  });
});
