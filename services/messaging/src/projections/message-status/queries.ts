import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { ErrorCode, MessageStatusView } from '@switchboard/contracts';
import { messageStatusView } from '../../message/status-view.js';

interface Row {
  message_id: string;
  account_id: string;
  session_id: string;
  to_phone: string;
  type: string;
  status: string;
  accepted_at: string;
  delivered_at: string | null;
  read_at: string | null;
  network_message_id: string | null;
  error_code: string | null;
  error_message: string | null;
}

/** Messages pending since before `?` or owed a refund, oldest first, at most `?` (both through partial indexes). */
export const UNFINISHED = `SELECT message_id FROM message_status WHERE (status = 'pending' AND accepted_at <= ?) OR refund_due = 1
  ORDER BY accepted_at LIMIT ?`;

/** A message as the read model knows it, with what receipts and quoting need. */
export interface StatusRecord {
  view: MessageStatusView;
  accountId: string;
  sessionId: string;
  networkMessageId: string | null;
}

/** Reads of the status read model (the tables `messageStatusProjection` keeps). */
export class MessageStatusQueries {
  private readonly byId: StatementSync;
  private readonly byNetworkId: StatementSync;
  private readonly open: StatementSync;

  constructor(db: DatabaseSync) {
    this.byId = db.prepare('SELECT * FROM message_status WHERE message_id = ?');
    this.byNetworkId = db.prepare('SELECT message_id FROM message_status WHERE session_id = ? AND network_message_id = ? AND account_id = ?');
    this.open = db.prepare(UNFINISHED);
  }

  /** The message if it belongs to `accountId`; another account's message is as unknown. */
  find(accountId: string, messageId: string): StatusRecord | null {
    const row = this.byId.get(messageId) as Row | undefined;
    if (row === undefined || row.account_id !== accountId) return null;
    return { view: toView(row), accountId: row.account_id, sessionId: row.session_id, networkMessageId: row.network_message_id };
  }

  /** Which message a receipt is about: network ids are unique per linked device (session). */
  messageIdOfNetworkId(accountId: string, sessionId: string, networkMessageId: string): string | null {
    const row = this.byNetworkId.get(sessionId, networkMessageId, accountId) as { message_id: string } | undefined;
    return row?.message_id ?? null;
  }

  /** Messages with unfinished work: accepted no later than `acceptedBefore` and still pending, or owed a refund. */
  unfinished(acceptedBefore: string, limit = 500): string[] {
    return (this.open.all(acceptedBefore, limit) as { message_id: string }[]).map((r) => r.message_id);
  }
}

/** The row holds only what the projection wrote from valid events: read as typed, not parsed again. */
function toView(row: Row): MessageStatusView {
  return messageStatusView({
    messageId: row.message_id as MessageStatusView['messageId'],
    status: row.status as MessageStatusView['status'],
    acceptedAt: row.accepted_at,
    deliveredAt: row.delivered_at,
    readAt: row.read_at,
    sessionId: row.session_id,
    to: row.to_phone,
    type: row.type as NonNullable<MessageStatusView['type']>,
    failure: row.error_code !== null ? { code: row.error_code as ErrorCode, message: row.error_message ?? row.error_code } : null,
  });
}
