import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ApiError, HistoryItem } from '@switchboard/contracts';
import type { HistoryContent, SealedInboundContent, SealedMessageContent, HistoryRequest, ListMessagesResult, MessageMediaRef } from '@switchboard/contracts';
import type { MessageFacts } from '../../contents/message-facts.js';
import type { OpenedInboundContent, OpenedMessageContent } from '../../contents/opened-content.js';
import { ERASED_HISTORY_CONTENT, inboundHistoryContent, outboundHistoryContent } from './content.js';

interface Row {
  message_id: string;
  account_id: string;
  session_id: string;
  direction: 'in' | 'out';
  contact: string;
  from_lid: string | null;
  type: string;
  content: string;
  quoted_message_id: string | null;
  at: string;
  at_ms: number;
  session_phone: string | null;
  status: string | null;
  delivered_at: string | null;
  read_at: string | null;
  error_code: string | null;
  error_message: string | null;
}

const SELECT = `SELECT h.*, p.phone AS session_phone, s.status, s.delivered_at, s.read_at, s.error_code, s.error_message
  FROM message_history h LEFT JOIN session_phone p ON p.session_id = h.session_id LEFT JOIN message_status s ON s.message_id = h.message_id`;

/** The page position after a row: opaque to clients, `<at_ms>.<message id>` in base64url. */
export const encodeCursor = (atMs: number, messageId: string): string => Buffer.from(`${atMs}.${messageId}`).toString('base64url');

export function decodeCursor(cursor: string): { atMs: number; messageId: string } {
  const [ms, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('.');
  const atMs = Number(ms);
  if (!Number.isSafeInteger(atMs) || !id || !/^msg_[0-9A-Z]{26}$/.test(id)) {
    throw new ApiError('VALIDATION_ERROR', undefined, [{ path: 'query.cursor', message: 'must be a cursor returned by an earlier page' }]);
  }
  return { atMs, messageId: id };
}

/**
 * Reads of the history read model (`messageHistoryProjection`), always within one account. Sealed
 * contents are opened here, their keys loaded for the whole page at once; a content whose key was
 * destroyed reads as erased.
 */
export class MessageHistoryQueries {
  private readonly byId: StatementSync;
  private readonly byNetworkId: StatementSync;
  private readonly reactions: StatementSync;

  constructor(
    private readonly db: DatabaseSync,
    private readonly facts: MessageFacts,
  ) {
    this.byId = db.prepare(`${SELECT} WHERE h.message_id = ? AND h.account_id = ?`);
    this.byNetworkId = db.prepare('SELECT message_id FROM message_history WHERE session_id = ? AND network_message_id = ? AND account_id = ? AND direction = ?');
    this.reactions = db.prepare('SELECT from_phone, emoji FROM message_reaction WHERE message_id = ? ORDER BY at');
  }

  async find(accountId: string, messageId: string): Promise<HistoryItem | null> {
    const row = this.byId.get(messageId, accountId) as Row | undefined;
    if (!row) return null;
    await this.prepare([row]);
    return this.item(row);
  }

  messageIdOfNetworkId(accountId: string, sessionId: string, networkMessageId: string, direction: 'in' | 'out'): string | null {
    const row = this.byNetworkId.get(sessionId, networkMessageId, accountId, direction) as { message_id: string } | undefined;
    return row?.message_id ?? null;
  }

  /** Where the bytes of a media message are; MESSAGE_NOT_FOUND / MEDIA_NOT_FOUND otherwise (erased too). */
  async media(accountId: string, messageId: string): Promise<MessageMediaRef> {
    const row = this.db.prepare('SELECT message_id, account_id, direction, content, media_sha256, media_mimetype, media_size FROM message_history WHERE message_id = ? AND account_id = ?').get(messageId, accountId) as
      | (StoredRow & { media_sha256: string | null; media_mimetype: string | null; media_size: number | null })
      | undefined;
    if (!row) throw new ApiError('MESSAGE_NOT_FOUND');
    if (row.media_sha256 !== null && row.media_mimetype !== null) return { sha256: row.media_sha256, mimetype: row.media_mimetype, size: row.media_size ?? 0 };
    await this.prepare([row]);
    const opened = this.opened(row, JSON.parse(row.content) as object);
    const media = opened !== null && opened.type === 'media' ? opened.media : null;
    if (media === null) throw new ApiError('MEDIA_NOT_FOUND');
    return { sha256: media.sha256, mimetype: media.mimetype, size: media.size };
  }

  /** One page, newest first, with the cursor of the next (null on the last). */
  async list(q: HistoryRequest): Promise<ListMessagesResult> {
    const where = ['h.account_id = ?'];
    const args: (string | number)[] = [q.accountId];
    const add = (clause: string, value: string | number | undefined) => {
      if (value === undefined) return;
      where.push(clause);
      args.push(value);
    };
    add('h.session_id = ?', q.sessionId);
    add('h.direction = ?', q.direction);
    add('h.contact = ?', q.contact);
    add('h.at_ms >= ?', q.since === undefined ? undefined : Date.parse(q.since));
    add('h.at_ms < ?', q.until === undefined ? undefined : Date.parse(q.until));
    if (q.cursor !== undefined) {
      const { atMs, messageId } = decodeCursor(q.cursor);
      where.push('(h.at_ms < ? OR (h.at_ms = ? AND h.message_id < ?))');
      args.push(atMs, atMs, messageId);
    }
    const sql = `${SELECT} WHERE ${where.join(' AND ')} ORDER BY h.at_ms DESC, h.message_id DESC LIMIT ?`;
    const rows = this.db.prepare(sql).all(...args, q.limit + 1) as unknown as Row[];
    const page = rows.slice(0, q.limit);
    await this.prepare(page);
    const last = page[page.length - 1];
    return { messages: page.map((r) => this.item(r)), nextCursor: rows.length > q.limit && last ? encodeCursor(last.at_ms, last.message_id) : null };
  }

  private item(row: Row): HistoryItem {
    const reactions = (this.reactions.all(row.message_id) as { from_phone: string; emoji: string }[]).map((r) => ({ from: r.from_phone, emoji: r.emoji }));
    const parties = row.direction === 'in' ? { from: row.contact, to: row.session_phone, ...(row.from_lid ? { fromLid: row.from_lid } : {}) } : { from: row.session_phone, to: row.contact };
    const outbound =
      row.direction === 'out'
        ? {
            status: row.status ?? 'pending',
            deliveredAt: row.delivered_at,
            readAt: row.read_at,
            ...(row.error_code !== null ? { error: { code: row.error_code, message: row.error_message ?? row.error_code } } : {}),
          }
        : {};
    return HistoryItem.parse({
      ...this.content(row),
      messageId: row.message_id,
      direction: row.direction,
      sessionId: row.session_id,
      ...parties,
      type: row.type,
      quotedMessageId: row.quoted_message_id,
      ...outbound,
      ...(reactions.length > 0 ? { reactions } : {}),
      timestamp: row.at,
    });
  }

  /** Loads the keys of the sealed contents among `rows`, all at once (rows in plain text are not even parsed). */
  private prepare(rows: readonly Pick<Row, 'account_id' | 'content'>[]): Promise<void> {
    const refs = [];
    for (const row of rows) {
      if (!row.content.includes('"sealed"')) continue;
      const stored = JSON.parse(row.content) as { keyId?: unknown; sealed?: unknown };
      if (typeof stored.sealed === 'string' && typeof stored.keyId === 'string') refs.push({ accountId: row.account_id, keyId: stored.keyId });
    }
    return this.facts.keys.prepare(refs);
  }

  /** The row's content as the history shows it: opened, erased, or as recorded in plain text. */
  private content(row: StoredRow): HistoryContent {
    const stored = JSON.parse(row.content) as HistoryContent | Sealed;
    const opened = this.opened(row, stored);
    if (opened === null) return (stored as HistoryContent).erased ? ERASED_HISTORY_CONTENT : (stored as HistoryContent);
    if (opened.type === 'erased') return ERASED_HISTORY_CONTENT;
    return row.direction === 'out'
      ? outboundHistoryContent(opened as Exclude<OpenedMessageContent, { type: 'erased' }>, row.message_id)
      : inboundHistoryContent(opened as Exclude<OpenedInboundContent, { type: 'erased' }>, row.message_id).content;
  }

  /**
   * A sealed row's content opened (or erased, its key destroyed); null for a row in plain text or
   * erased. The row was written by the projection from a parsed event: trusted as it is.
   */
  private opened(row: StoredRow, stored: object): OpenedMessageContent | OpenedInboundContent | null {
    if (typeof (stored as Partial<Sealed>).sealed !== 'string') return null;
    return row.direction === 'out'
      ? this.facts.openOutbound(row.account_id, row.message_id, stored as SealedMessageContent)
      : this.facts.openInbound(row.account_id, row.message_id, stored as SealedInboundContent);
  }
}

type Sealed = SealedMessageContent | SealedInboundContent;

/** The columns a row's content is read from. */
type StoredRow = Pick<Row, 'message_id' | 'account_id' | 'direction' | 'content'>;
