import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { STREAM_CATEGORY, isSealed, messageEventParser } from '@switchboard/contracts';
import type { StoredMessageEvent } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';
import type { Projection } from '@switchboard/service-kit';
import { toRawEvent } from '@switchboard/service-kit';
import { ERASED_ROW, inboundHistoryContent, outboundHistoryContent } from './content.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS message_history (
  message_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  direction TEXT NOT NULL,
  contact TEXT NOT NULL,
  from_lid TEXT,
  type TEXT NOT NULL,
  content TEXT NOT NULL,
  quoted_message_id TEXT,
  network_message_id TEXT,
  media_sha256 TEXT,
  media_mimetype TEXT,
  media_size INTEGER,
  at TEXT NOT NULL,
  at_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS message_history_page ON message_history (account_id, at_ms DESC, message_id DESC);
CREATE INDEX IF NOT EXISTS message_history_by_network_id ON message_history (session_id, network_message_id);
CREATE TABLE IF NOT EXISTS session_phone (session_id TEXT PRIMARY KEY, phone TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS message_reaction (
  message_id TEXT NOT NULL,
  from_phone TEXT NOT NULL,
  emoji TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (message_id, from_phone)
);
`;

/**
 * The conversation history: one row per message, in or out, with its content as the history item
 * shows it (JSON) and what GET /media needs; a content recorded sealed stays sealed here (opened when
 * read, see MessageHistoryQueries), and an erasure of the account's contents (MessageContentsErased)
 * clears what its destroyed keys sealed and what was recorded in plain text before sealing existed. Outbound statuses stay in the status read model and
 * are joined at read time. The linked number of a session is learned from what it sends and receives.
 * An outbound message accepted in the batch being applied is written at the batch's end, with the
 * network id its MessageSent in the same batch gave it (one insert instead of an insert and an
 * update), and so is the number each session was last seen with (once, not once per message).
 */
export function messageHistoryProjection(db: DatabaseSync, name = 'message-history-v1'): Projection {
  db.exec(SCHEMA);
  const s = prepare(db);
  const batch: Batch = { accepted: new Map(), phones: new Map() };
  return {
    name,
    category: STREAM_CATEGORY.message,
    apply(recorded: RecordedEvent): void {
      // Receipts, failures and refunds change nothing here: not even read.
      if (NOT_IN_HISTORY.has(recorded.type)) return;
      applyEvent(s, batch, messageEventParser.decode(toRawEvent(recorded)));
    },
    flush(): void {
      try {
        for (const message of batch.accepted.values()) writeAccepted(s, message);
        for (const [sessionId, phone] of batch.phones) s.phone.run(sessionId, phone);
      } finally {
        batch.accepted.clear();
        batch.phones.clear();
      }
    },
  };
}

const NOT_IN_HISTORY: ReadonlySet<string> = new Set(['MessageDelivered', 'MessageRead', 'MessageFailed', 'MessageQuotaRefunded'] satisfies StoredMessageEvent['type'][]);

/** The values of a message_history row, in the order of the insert. */
type HistoryRow = [
  messageId: string, accountId: string, sessionId: string, direction: 'in' | 'out', contact: string, fromLid: string | null, type: string,
  content: string, quotedMessageId: string | null, networkMessageId: string | null, mediaSha256: string | null,
  mediaMimetype: string | null, mediaSize: number | null, at: string, atMs: number,
];

/** An outbound message accepted in this batch: its row so far, and the network id its MessageSent gave it. */
interface AcceptedInBatch {
  row: HistoryRow;
  networkMessageId: string | undefined;
}

/** What the batch being applied writes at its end: messages it accepted, and each session's last linked number. */
interface Batch {
  accepted: Map<string, AcceptedInBatch>;
  phones: Map<string, string>;
}

function prepare(db: DatabaseSync) {
  return {
    insert: db.prepare(`INSERT OR IGNORE INTO message_history (message_id, account_id, session_id, direction, contact, from_lid, type, content,
      quoted_message_id, network_message_id, media_sha256, media_mimetype, media_size, at, at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    sent: db.prepare('UPDATE message_history SET network_message_id = ? WHERE message_id = ?'),
    phone: db.prepare('INSERT INTO session_phone (session_id, phone) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET phone = excluded.phone'),
    sessionOf: db.prepare('SELECT session_id FROM message_history WHERE message_id = ?'),
    react: db.prepare(`INSERT INTO message_reaction (message_id, from_phone, emoji, at) VALUES (?, ?, ?, ?)
      ON CONFLICT (message_id, from_phone) DO UPDATE SET emoji = excluded.emoji, at = excluded.at WHERE excluded.at >= message_reaction.at`),
    unreact: db.prepare('DELETE FROM message_reaction WHERE message_id = ? AND from_phone = ? AND at <= ?'),
    // Contents in plain text (recorded before sealing) and those the destroyed keys sealed.
    erase: db.prepare(`UPDATE message_history SET content = ?, media_sha256 = NULL, media_mimetype = NULL, media_size = NULL
      WHERE account_id = ? AND content <> ? AND (json_extract(content, '$.sealed') IS NULL OR json_extract(content, '$.keyId') IN (SELECT value FROM json_each(?)))`),
  } satisfies Record<string, StatementSync>;
}

type Statements = ReturnType<typeof prepare>;

function applyEvent(s: Statements, { accepted, phones }: Batch, event: StoredMessageEvent): void {
  switch (event.type) {
    case 'MessageAccepted': {
      const d = event.data;
      // Accepted is its stream's first fact: a second one for the same message changes nothing.
      if (accepted.has(d.messageId)) return;
      const content = isSealed(d.content) ? JSON.stringify(d.content) : JSON.stringify(outboundHistoryContent(d.content, d.messageId));
      const media = !isSealed(d.content) && d.content.type === 'media' ? d.content.media : null;
      accepted.set(d.messageId, {
        row: [d.messageId, d.accountId, d.sessionId, 'out', d.to, null, d.content.type, content,
          d.quotedMessageId, null, media?.sha256 ?? null, media?.mimetype ?? null, media?.size ?? null, d.acceptedAt, Date.parse(d.acceptedAt)],
        networkMessageId: undefined,
      });
      return;
    }
    case 'MessageSent': {
      const d = event.data;
      const inBatch = accepted.get(d.messageId);
      if (inBatch === undefined) s.sent.run(d.networkMessageId, d.messageId);
      else inBatch.networkMessageId = d.networkMessageId;
      // The sender of outbound messages: the session's linked number, also before it received anything.
      if (d.from === undefined) return;
      // Accepted in an earlier batch, its row names the session.
      const sessionId = inBatch === undefined ? (s.sessionOf.get(d.messageId) as { session_id: string } | undefined)?.session_id : inBatch.row[2];
      if (sessionId !== undefined) phones.set(sessionId, d.from);
      return;
    }
    case 'MessageReceived': {
      const d = event.data;
      const { type, content } = isSealed(d.content) ? { type: d.content.type, content: d.content } : inboundHistoryContent(d.content, d.messageId);
      const media = !isSealed(d.content) && d.content.type === 'media' ? d.content.media : null;
      s.insert.run(d.messageId, d.accountId, d.sessionId, 'in', d.from, d.fromLid ?? null, type, JSON.stringify(content),
        d.quotedMessageId ?? d.quotedNetworkId, d.networkMessageId, media?.sha256 ?? null, media?.mimetype ?? null, media?.size ?? null, d.sentAt, Date.parse(d.sentAt));
      phones.set(d.sessionId, d.to);
      return;
    }
    case 'MessageReactionReceived': {
      const d = event.data;
      const target = d.targetMessageId ?? d.targetNetworkId;
      if (d.emoji === '') s.unreact.run(target, d.from, d.sentAt);
      else s.react.run(target, d.from, d.emoji, d.sentAt);
      phones.set(d.sessionId, d.to);
      return;
    }
    case 'MessageContentsErased': {
      // Rows this batch accepted are written first, so the erasure reaches them too.
      for (const message of accepted.values()) writeAccepted(s, message);
      accepted.clear();
      s.erase.run(ERASED_ROW, event.data.accountId, ERASED_ROW, JSON.stringify(event.data.keyIds));
      return;
    }
    default:
      return;
  }
}

/**
 * Inserts the row with its network id. A row already there (a replay under a new projection name
 * over the old table) keeps its content and takes the network id as the update would have given it.
 */
function writeAccepted(s: Statements, { row, networkMessageId }: AcceptedInBatch): void {
  const values: HistoryRow = [...row];
  values[9] = networkMessageId ?? null;
  const inserted = s.insert.run(...values);
  if (inserted.changes === 0 && networkMessageId !== undefined) s.sent.run(networkMessageId, row[0]);
}
