import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { STREAM_CATEGORY, messageEventParser } from '@switchboard/contracts';
import type { StoredMessageEvent } from '@switchboard/contracts';
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
-- Only the rows recovery looks for are indexed: the few pending or owed a refund, not every message
-- (a status change of any other row then touches no index but the network id's).
DROP INDEX IF EXISTS message_status_by_status;
DROP INDEX IF EXISTS message_status_refund_due;
CREATE INDEX IF NOT EXISTS message_status_pending ON message_status (accepted_at) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS message_status_refund_owed ON message_status (refund_due) WHERE refund_due = 1;
`;

/**
 * The status read model: one row per message, what GET /v1/messages/{id} shows, the network id a
 * receipt is matched by, and the open work recovery finishes. Status moves only along MOVES (the
 * same guards as the aggregate), so the row never moves backwards either. A message accepted in
 * the batch being applied is kept in memory until the batch's end and written once, with what the
 * rest of the batch did to it (a catch-up writes most messages once, not once per fact).
 */
export function messageStatusProjection(db: DatabaseSync, name = 'message-status-v1'): Projection {
  db.exec(SCHEMA);
  const statements = prepare(db);
  const accepted = new Map<string, AcceptedInBatch>();
  return {
    name,
    category: STREAM_CATEGORY.message,
    apply(recorded: RecordedEvent): void {
      if (NOT_STATUS_FACTS.has(recorded.type)) return;
      applyEvent(statements, accepted, messageEventParser.decode(toRawEvent(recorded)));
    },
    flush(): void {
      try {
        for (const message of accepted.values()) writeAccepted(statements, message);
      } finally {
        accepted.clear();
      }
    },
  };
}

type Status = 'pending' | 'sent' | 'delivered' | 'read' | 'failed';
/** Received messages are not ours to track (the history read model keeps them), nor are erasures of contents. */
type StatusEvent = Exclude<StoredMessageEvent, { type: NotStatusFact }>;
type NotStatusFact = 'MessageReceived' | 'MessageReactionReceived' | 'MessageContentsErased';
/** Skipped before they are parsed (a received message's content is the largest body of the category). */
const NOT_STATUS_FACTS: ReadonlySet<string> = new Set<NotStatusFact>(['MessageReceived', 'MessageReactionReceived', 'MessageContentsErased']);
const isStatusEvent = (event: StoredMessageEvent): event is StatusEvent => !NOT_STATUS_FACTS.has(event.type);

/** Which statuses each fact moves a message from (a read implies delivery), and to which. */
const MOVES = {
  MessageSent: { from: ['pending'], to: 'sent' },
  MessageDelivered: { from: ['sent'], to: 'delivered' },
  MessageRead: { from: ['sent', 'delivered'], to: 'read' },
  MessageFailed: { from: ['pending'], to: 'failed' },
} as const satisfies Partial<Record<StatusEvent['type'], { from: readonly Status[]; to: Status }>>;

const whereMovable = (type: keyof typeof MOVES): string =>
  `WHERE message_id = ? AND status IN (${MOVES[type].from.map((status) => `'${status}'`).join(', ')})`;

type Accepted = Extract<StatusEvent, { type: 'MessageAccepted' }>['data'];

/**
 * The columns of a message_status row, in the order of the insert, as its MessageAccepted made it.
 * This and AcceptedInBatch are classes because they live until the batch's end (see `StoredEvent`
 * in the eventstore library).
 */
class StatusRow {
  readonly messageId: string; readonly accountId: string; readonly sessionId: string; readonly to: string; readonly type: string;
  status: Status = 'pending';
  readonly acceptedAt: string;
  sentAt: string | null = null; deliveredAt: string | null = null; readAt: string | null = null; networkMessageId: string | null = null;
  errorCode: string | null = null; errorMessage: string | null = null; refundDue: 0 | 1 = 0;

  constructor(d: Accepted) {
    this.messageId = d.messageId;
    this.accountId = d.accountId;
    this.sessionId = d.sessionId;
    this.to = d.to;
    this.type = d.content.type;
    this.acceptedAt = d.acceptedAt;
  }
}

/** A message accepted in this batch: its row so far, and the later facts that shaped it (`new Array`: an array literal is tracked as an object literal is). */
class AcceptedInBatch {
  readonly later = new Array<StatusEvent>();
  constructor(readonly row: StatusRow) {}
}

function prepare(db: DatabaseSync) {
  return {
    insert: db.prepare(`INSERT OR IGNORE INTO message_status (message_id, account_id, session_id, to_phone, type, status, accepted_at,
      sent_at, delivered_at, read_at, network_message_id, error_code, error_message, refund_due) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    MessageSent: db.prepare(`UPDATE message_status SET status = 'sent', network_message_id = ?, sent_at = ? ${whereMovable('MessageSent')}`),
    MessageDelivered: db.prepare(`UPDATE message_status SET status = 'delivered', delivered_at = ? ${whereMovable('MessageDelivered')}`),
    MessageRead: db.prepare(`UPDATE message_status SET status = 'read', read_at = ?, delivered_at = COALESCE(delivered_at, ?) ${whereMovable('MessageRead')}`),
    MessageFailed: db.prepare(`UPDATE message_status SET status = 'failed', error_code = ?, error_message = ?, refund_due = ? ${whereMovable('MessageFailed')}`),
    MessageQuotaRefunded: db.prepare('UPDATE message_status SET refund_due = 0 WHERE message_id = ?'),
  } satisfies Record<string, StatementSync>;
}

type Statements = ReturnType<typeof prepare>;

function applyEvent(s: Statements, accepted: Map<string, AcceptedInBatch>, event: StoredMessageEvent): void {
  if (!isStatusEvent(event)) return;
  if (event.type === 'MessageAccepted') {
    const d = event.data;
    // Accepted is its stream's first fact: a second one for the same message changes nothing.
    if (!accepted.has(d.messageId)) accepted.set(d.messageId, new AcceptedInBatch(new StatusRow(d)));
    return;
  }
  const inBatch = accepted.get(event.data.messageId);
  if (inBatch === undefined) updateStored(s, event);
  else {
    moveInMemory(inBatch.row, event);
    inBatch.later.push(event);
  }
}

/** The same moves as the guarded updates, on a row not written yet. */
function moveInMemory(row: StatusRow, event: StatusEvent): void {
  if (event.type === 'MessageAccepted') return;
  if (event.type === 'MessageQuotaRefunded') {
    row.refundDue = 0;
    return;
  }
  if (!(MOVES[event.type].from as readonly Status[]).includes(row.status)) return;
  row.status = MOVES[event.type].to;
  switch (event.type) {
    case 'MessageSent':
      row.networkMessageId = event.data.networkMessageId;
      row.sentAt = event.data.sentAt;
      return;
    case 'MessageDelivered':
      row.deliveredAt = event.data.deliveredAt;
      return;
    case 'MessageRead':
      row.readAt = event.data.readAt;
      row.deliveredAt ??= event.data.readAt;
      return;
    case 'MessageFailed':
      row.errorCode = event.data.code;
      row.errorMessage = event.data.message;
      row.refundDue = event.data.refundable ? 1 : 0;
      return;
  }
}

function updateStored(s: Statements, event: StatusEvent): void {
  switch (event.type) {
    case 'MessageAccepted':
      return;
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
  }
}

/**
 * Inserts the row as the batch left it. A row already there (a replay under a new projection name
 * over the old table) keeps its own state and takes the batch's later facts through the guarded updates.
 */
function writeAccepted(s: Statements, { row, later }: AcceptedInBatch): void {
  const inserted = s.insert.run(row.messageId, row.accountId, row.sessionId, row.to, row.type, row.status, row.acceptedAt,
    row.sentAt, row.deliveredAt, row.readAt, row.networkMessageId, row.errorCode, row.errorMessage, row.refundDue);
  if (inserted.changes === 0) for (const event of later) updateStored(s, event);
}
