import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { STREAM_CATEGORY, messageEventParser } from '@switchboard/contracts';
import type { MessageEvent } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';
import type { Projection } from '@switchboard/service-kit';
import { toRawEvent } from '@switchboard/service-kit';
import { inboundHistoryContent, outboundHistoryContent } from './content.js';

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
 * shows it (JSON) and what GET /media needs. Outbound statuses stay in the status read model and
 * are joined at read time. The linked number of a session is learned from what it sends and receives.
 */
export function messageHistoryProjection(db: DatabaseSync, name = 'message-history-v1'): Projection {
  db.exec(SCHEMA);
  const s = prepare(db);
  return {
    name,
    category: STREAM_CATEGORY.message,
    apply(recorded: RecordedEvent): void {
      applyEvent(s, messageEventParser.parse(toRawEvent(recorded)));
    },
  };
}

function prepare(db: DatabaseSync) {
  return {
    insert: db.prepare(`INSERT OR IGNORE INTO message_history (message_id, account_id, session_id, direction, contact, from_lid, type, content,
      quoted_message_id, network_message_id, media_sha256, media_mimetype, media_size, at, at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    sent: db.prepare('UPDATE message_history SET network_message_id = ? WHERE message_id = ?'),
    phone: db.prepare('INSERT INTO session_phone (session_id, phone) VALUES (?, ?) ON CONFLICT (session_id) DO UPDATE SET phone = excluded.phone'),
    senderPhone: db.prepare(`INSERT INTO session_phone (session_id, phone) SELECT session_id, ? FROM message_history WHERE message_id = ?
      ON CONFLICT (session_id) DO UPDATE SET phone = excluded.phone`),
    react: db.prepare(`INSERT INTO message_reaction (message_id, from_phone, emoji, at) VALUES (?, ?, ?, ?)
      ON CONFLICT (message_id, from_phone) DO UPDATE SET emoji = excluded.emoji, at = excluded.at WHERE excluded.at >= message_reaction.at`),
    unreact: db.prepare('DELETE FROM message_reaction WHERE message_id = ? AND from_phone = ? AND at <= ?'),
  } satisfies Record<string, StatementSync>;
}

function applyEvent(s: ReturnType<typeof prepare>, event: MessageEvent): void {
  switch (event.type) {
    case 'MessageAccepted': {
      const d = event.data;
      const media = d.content.type === 'media' ? d.content.media : null;
      s.insert.run(d.messageId, d.accountId, d.sessionId, 'out', d.to, null, d.content.type, JSON.stringify(outboundHistoryContent(d.content, d.messageId)),
        d.quotedMessageId, null, media?.sha256 ?? null, media?.mimetype ?? null, media?.size ?? null, d.acceptedAt, Date.parse(d.acceptedAt));
      return;
    }
    case 'MessageSent':
      s.sent.run(event.data.networkMessageId, event.data.messageId);
      // The sender of outbound messages: the session's linked number, also before it received anything.
      if (event.data.from) s.senderPhone.run(event.data.from, event.data.messageId);
      return;
    case 'MessageReceived': {
      const d = event.data;
      const { type, content } = inboundHistoryContent(d.content, d.messageId);
      const media = d.content.type === 'media' ? d.content.media : null;
      s.insert.run(d.messageId, d.accountId, d.sessionId, 'in', d.from, d.fromLid ?? null, type, JSON.stringify(content),
        d.quotedMessageId ?? d.quotedNetworkId, d.networkMessageId, media?.sha256 ?? null, media?.mimetype ?? null, media?.size ?? null, d.sentAt, Date.parse(d.sentAt));
      s.phone.run(d.sessionId, d.to);
      return;
    }
    case 'MessageReactionReceived': {
      const d = event.data;
      const target = d.targetMessageId ?? d.targetNetworkId;
      if (d.emoji === '') s.unreact.run(target, d.from, d.sentAt);
      else s.react.run(target, d.from, d.emoji, d.sentAt);
      s.phone.run(d.sessionId, d.to);
      return;
    }
    default:
      return;
  }
}
