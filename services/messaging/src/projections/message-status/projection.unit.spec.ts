import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import type { MessageEvent } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';
import { messageStatusProjection } from './projection.js';
import { MessageStatusQueries, UNFINISHED } from './queries.js';

const ACC = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const SES = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const A = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K';
const B = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9M';

function fixture() {
  const db = new DatabaseSync(':memory:');
  const projection = messageStatusProjection(db);
  let position = 0n;
  const apply = (...events: MessageEvent[]) => {
    for (const e of events) {
      position += 1n;
      const recorded: RecordedEvent = {
        stream: `message-${(e.data as { messageId: string }).messageId}`, type: e.type, revision: 0n, position,
        data: e.data, metadata: { schemaVersion: e.version }, recordedAt: new Date(), id: String(position),
      };
      projection.apply(recorded);
    }
    // Each call is one batch, as the runner applies them.
    projection.flush?.();
  };
  return { apply, db, queries: new MessageStatusQueries(db) };
}

const C = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9N';
const read = (messageId: string, at: string): MessageEvent => ({ type: 'MessageRead', version: 1, data: { messageId, readAt: at } });
const delivered = (messageId: string, at: string): MessageEvent => ({ type: 'MessageDelivered', version: 1, data: { messageId, deliveredAt: at } });
const failed = (messageId: string): MessageEvent => ({ type: 'MessageFailed', version: 1, data: { messageId, code: 'SESSION_NOT_CONNECTED', message: 'not connected', refundable: true, failedAt: '2026-11-21T10:00:01.000Z' } });
const refunded = (messageId: string): MessageEvent => ({ type: 'MessageQuotaRefunded', version: 1, data: { messageId, usageDay: '2026-11-21', refundedAt: '2026-11-21T10:00:02.000Z' } });
const rows = (db: DatabaseSync) => db.prepare('SELECT * FROM message_status ORDER BY message_id').all();

const accepted = (messageId: string, at = '2026-11-21T10:00:00.000Z'): MessageEvent => ({
  type: 'MessageAccepted', version: 2,
  data: { messageId, accountId: ACC, sessionId: SES, to: '15551234567', content: { type: 'location', latitude: 1, longitude: 2 }, quotedMessageId: null, idempotencyKeyHash: null, usageDay: '2026-11-21', acceptedAt: at },
});
const sent = (messageId: string, networkMessageId: string): MessageEvent => ({ type: 'MessageSent', version: 1, data: { messageId, networkMessageId, sentAt: '2026-11-21T10:00:01.000Z' } });

describe('message status read model', () => {
  it('shows pending with null times, then follows receipts forwards only', () => {
    const { apply, queries } = fixture();
    apply(accepted(A));
    expect(queries.find(ACC, A)?.view).toEqual({
      messageId: A, status: 'pending', timestamp: '2026-11-21T10:00:00.000Z', deliveredAt: null, readAt: null, sessionId: SES, to: '15551234567', type: 'location',
    });
    apply(sent(A, 'NET-A'), { type: 'MessageRead', version: 1, data: { messageId: A, readAt: '2026-11-21T10:00:05.000Z' } });
    apply({ type: 'MessageDelivered', version: 1, data: { messageId: A, deliveredAt: '2026-11-21T10:00:09.000Z' } });
    expect(queries.find(ACC, A)?.view).toMatchObject({ status: 'read', deliveredAt: '2026-11-21T10:00:05.000Z', readAt: '2026-11-21T10:00:05.000Z' });
  });

  it('matches receipts by session and network id, within the account only', () => {
    const { apply, queries } = fixture();
    apply(accepted(A), sent(A, 'NET-A'));
    expect(queries.messageIdOfNetworkId(ACC, SES, 'NET-A')).toBe(A);
    expect(queries.messageIdOfNetworkId('acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1G', SES, 'NET-A')).toBeNull();
    expect(queries.find('acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1G', A)).toBeNull();
  });

  it('lists unfinished work: pending messages old enough, and failures owed a refund until refunded', () => {
    const { apply, queries } = fixture();
    apply(accepted(A, '2026-11-21T10:00:00.000Z'), accepted(B, '2026-11-21T11:00:00.000Z'));
    expect(queries.unfinished('2026-11-21T10:30:00.000Z')).toEqual([A]);
    apply({ type: 'MessageFailed', version: 1, data: { messageId: A, code: 'SESSION_NOT_CONNECTED', message: 'not connected', refundable: true, failedAt: '2026-11-21T10:00:01.000Z' } });
    expect(queries.unfinished('2026-11-21T10:30:00.000Z')).toEqual([A]);
    expect(queries.find(ACC, A)?.view).toMatchObject({ status: 'failed', error: { code: 'SESSION_NOT_CONNECTED', message: 'not connected' } });
    apply({ type: 'MessageQuotaRefunded', version: 1, data: { messageId: A, usageDay: '2026-11-21', refundedAt: '2026-11-21T10:00:02.000Z' } });
    expect(queries.unfinished('2026-11-21T12:00:00.000Z')).toEqual([B]);
  });

  it('writes a batch as applying its facts one at a time would, receipts out of order and late facts included', () => {
    const facts = [
      accepted(A), sent(A, 'NET-A'), read(A, '2026-11-21T10:00:05.000Z'), delivered(A, '2026-11-21T10:00:09.000Z'),
      accepted(B), failed(B), sent(B, 'NET-B'), refunded(B),
      sent(C, 'NET-C'), accepted(C), accepted(C), delivered(C, '2026-11-21T10:00:03.000Z'),
    ];
    const oneByOne = fixture();
    for (const fact of facts) oneByOne.apply(fact);
    const together = fixture();
    together.apply(...facts);
    expect(rows(together.db)).toEqual(rows(oneByOne.db));
    expect(together.queries.find(ACC, A)?.view).toMatchObject({ status: 'read', deliveredAt: '2026-11-21T10:00:05.000Z' });
    expect(together.queries.find(ACC, B)?.view).toMatchObject({ status: 'failed' });
    expect(together.queries.find(ACC, C)?.view).toMatchObject({ status: 'pending' });
  });

  it('replayed under a new name over its old table, moves rows only forwards', () => {
    const { db, apply } = fixture();
    apply(accepted(A), sent(A, 'NET-A'), delivered(A, '2026-11-21T10:00:03.000Z'));
    const replay = messageStatusProjection(db, 'message-status-v2');
    const position = { n: 100n };
    for (const fact of [accepted(A), sent(A, 'NET-A'), read(A, '2026-11-21T10:00:05.000Z')]) {
      position.n += 1n;
      replay.apply({ stream: `message-${A}`, type: fact.type, revision: 0n, position: position.n, data: fact.data, metadata: { schemaVersion: fact.version }, recordedAt: new Date(), id: String(position.n) });
    }
    replay.flush?.();
    expect(new MessageStatusQueries(db).find(ACC, A)?.view).toMatchObject({ status: 'read', deliveredAt: '2026-11-21T10:00:03.000Z', readAt: '2026-11-21T10:00:05.000Z' });
  });

  it('indexes only the rows recovery looks for, replacing the whole-table indexes of an older read model at open', () => {
    const db = new DatabaseSync(':memory:');
    // The indexes a read model of an earlier version holds.
    db.exec(`CREATE TABLE message_status (message_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, session_id TEXT NOT NULL, to_phone TEXT NOT NULL,
      type TEXT NOT NULL, status TEXT NOT NULL, accepted_at TEXT NOT NULL, sent_at TEXT, delivered_at TEXT, read_at TEXT, network_message_id TEXT,
      error_code TEXT, error_message TEXT, refund_due INTEGER NOT NULL DEFAULT 0);
      CREATE INDEX message_status_by_status ON message_status (status); CREATE INDEX message_status_refund_due ON message_status (refund_due);`);
    messageStatusProjection(db);
    const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").all() as { name: string; sql: string }[];
    expect(indexes.map((i) => i.name)).toEqual(['message_status_by_network_id', 'message_status_pending', 'message_status_refund_owed']);
    expect(indexes.filter((i) => / WHERE /.test(i.sql)).map((i) => i.name)).toEqual(['message_status_pending', 'message_status_refund_owed']);
    // Unfinished work is still found through them, not by reading every row.
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${UNFINISHED}`).all('2026-11-21T12:00:00.000Z', 500) as { detail: string }[];
    const details = plan.map((step) => step.detail).join(' | ');
    expect(details).toContain('USING INDEX message_status_pending');
    expect(details).toContain('USING INDEX message_status_refund_owed');
  });
});
