import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { STREAM_CATEGORY, messageEventParser } from '@switchboard/contracts';
import type { MessageEvent } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';
import type { Projection } from '@switchboard/service-kit';
import { toRawEvent } from '@switchboard/service-kit';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS message_status (
  message_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  to_phone TEXT NOT NULL,
  type TEXT NOT NULL,
  status TEXT NOT NULL,
  accepted_at TEXT NOT NULL,
  sent_at TEXT,
  delivered_at TEXT,
  read_at TEXT,
  network_message_id TEXT,
  error_code TEXT,
  error_message TEXT,
  refund_due INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS message_status_by_network_id ON message_status (session_id, network_message_id);
CREATE INDEX IF NOT EXISTS message_status_by_status ON message_status (status);
CREATE INDEX IF NOT EXISTS message_status_refund_due ON message_status (refund_due);
`;

/**
 * The status read model: one row per message, what GET /v1/messages/{id} shows, the network id a
 * receipt is matched by, and the open work recovery finishes. Updates carry the same guards as
 * the aggregate (`WHERE status = …`), so the row never moves backwards either.
 */
export function messageStatusProjection(db: DatabaseSync, name = 'message-status-v1'): Projection {
  db.exec(SCHEMA);
  const statements = prepare(db);
  return {
    name,
    category: STREAM_CATEGORY.message,
    apply(recorded: RecordedEvent): void {
      applyEvent(statements, messageEventParser.parse(toRawEvent(recorded)));
    },
  };
}

/** Received messages are not ours to track: the history read model keeps them. */
type Statements = Record<Exclude<MessageEvent['type'], 'MessageReceived' | 'MessageReactionReceived'>, StatementSync>;

function prepare(db: DatabaseSync): Statements {
  return {
    MessageAccepted: db.prepare(`INSERT OR IGNORE INTO message_status
      (message_id, account_id, session_id, to_phone, type, status, accepted_at) VALUES (?, ?, ?, ?, ?, 'pending', ?)`),
    MessageSent: db.prepare(`UPDATE message_status SET status = 'sent', network_message_id = ?, sent_at = ?
      WHERE message_id = ? AND status = 'pending'`),
    MessageDelivered: db.prepare(`UPDATE message_status SET status = 'delivered', delivered_at = ?
      WHERE message_id = ? AND status = 'sent'`),
    // A read implies delivery: a missing delivered receipt takes the read time.
    MessageRead: db.prepare(`UPDATE message_status SET status = 'read', read_at = ?, delivered_at = COALESCE(delivered_at, ?)
      WHERE message_id = ? AND status IN ('sent', 'delivered')`),
    MessageFailed: db.prepare(`UPDATE message_status SET status = 'failed', error_code = ?, error_message = ?, refund_due = ?
      WHERE message_id = ? AND status = 'pending'`),
    MessageQuotaRefunded: db.prepare(`UPDATE message_status SET refund_due = 0 WHERE message_id = ?`),
  };
}

function applyEvent(s: Statements, event: MessageEvent): void {
  switch (event.type) {
    case 'MessageAccepted': {
      const d = event.data;
      s.MessageAccepted.run(d.messageId, d.accountId, d.sessionId, d.to, d.content.type, d.acceptedAt);
      return;
    }
    case 'MessageSent':
      s.MessageSent.run(event.data.networkMessageId, event.data.sentAt, event.data.messageId);
      return;
    case 'MessageDelivered':
      s.MessageDelivered.run(event.data.deliveredAt, event.data.messageId);
      return;
    case 'MessageRead':
      s.MessageRead.run(event.data.readAt, event.data.readAt, event.data.messageId);
      return;
    case 'MessageFailed': {
      const d = event.data;
      s.MessageFailed.run(d.code, d.message, d.refundable ? 1 : 0, d.messageId);
      return;
    }
    case 'MessageQuotaRefunded':
      s.MessageQuotaRefunded.run(event.data.messageId);
      return;
    default:
      return;
  }
}
