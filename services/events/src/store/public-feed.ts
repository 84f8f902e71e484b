import type { DatabaseSync } from 'node:sqlite';
import type { PublicEvent } from '@switchboard/contracts';

/** One recorded public event with its place in the service's feed. */
export interface FeedRow {
  seq: number;
  accountId: string;
  sessionKey: string;
  event: PublicEvent;
}

interface Row {
  seq: number;
  account_id: string;
  session_id: string | null;
  body: string;
}

const row = (r: Row): FeedRow => ({ seq: r.seq, accountId: r.account_id, sessionKey: r.session_id ?? '', event: JSON.parse(r.body) as PublicEvent });

/** One page of the feed: rows after `afterSeq` up to `untilSeq` (the head when the reading began), at most `limit`. */
export interface FeedPage {
  afterSeq: number;
  untilSeq: number;
  limit: number;
}

export interface FeedFilter {
  types?: readonly string[] | undefined;
  sessionId?: string | undefined;
}

/**
 * The public events this service recorded, per account, each once (by id), in the order they were
 * recorded: what the live stream, replays and deliveries read. Kept (not pruned) so any past event
 * can be replayed; `Last-Event-ID` resumes from here.
 */
export class PublicFeed {
  private readonly insert;
  private readonly seqOf;
  private readonly maxSeq;

  constructor(private readonly db: DatabaseSync) {
    this.insert = db.prepare('INSERT OR IGNORE INTO public_events (event_id, account_id, session_id, type, timestamp, body) VALUES (?, ?, ?, ?, ?, ?)');
    this.seqOf = db.prepare('SELECT seq FROM public_events WHERE event_id = ? AND account_id = ?');
    this.maxSeq = db.prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM public_events');
  }

  /** Records an event unless its id is already there; the new row's seq, or null for a repeat. */
  record(accountId: string, event: PublicEvent): number | null {
    const sessionId = 'sessionId' in event.data ? event.data.sessionId : null;
    const result = this.insert.run(event.id, accountId, sessionId, event.type, event.timestamp, JSON.stringify(event));
    return result.changes === 1 ? Number(result.lastInsertRowid) : null;
  }

  /** Where an account's event sits in the feed (null: not this account's, or never recorded). */
  positionOf(accountId: string, eventId: string): number | null {
    const found = this.seqOf.get(eventId, accountId) as { seq: number } | undefined;
    return found?.seq ?? null;
  }

  head(): number {
    return (this.maxSeq.get() as { seq: number }).seq;
  }

  /** An account's events after `afterSeq` up to `untilSeq`, filtered, oldest first. */
  after(accountId: string, afterSeq: number, untilSeq: number, filter: FeedFilter, limit: number): FeedRow[] {
    const where = ['account_id = ?', 'seq > ?', 'seq <= ?'];
    const params: (string | number)[] = [accountId, afterSeq, untilSeq];
    if (filter.types && filter.types.length > 0) {
      where.push(`type IN (${filter.types.map(() => '?').join(', ')})`);
      params.push(...filter.types);
    }
    if (filter.sessionId) {
      where.push('session_id = ?');
      params.push(filter.sessionId);
    }
    const sql = `SELECT seq, account_id, session_id, body FROM public_events WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ?`;
    return (this.db.prepare(sql).all(...params, limit) as unknown as Row[]).map(row);
  }

  /**
   * An account's events whose timestamp is within [since, until], oldest first (replay). The
   * bounds are compared as the stored timestamps are written (`toISOString`, milliseconds): as
   * given, `…T10:00:00Z` sorts after `…T10:00:00.120Z`, which skipped the window's first second.
   */
  window(accountId: string, since: string, until: string, types: readonly string[], page: FeedPage): FeedRow[] {
    const sql = `SELECT seq, account_id, session_id, body FROM public_events
      WHERE account_id = ? AND seq > ? AND seq <= ? AND timestamp >= ? AND timestamp <= ? AND type IN (${types.map(() => '?').join(', ')})
      ORDER BY seq LIMIT ?`;
    const [from, to] = [new Date(since).toISOString(), new Date(until).toISOString()];
    return (this.db.prepare(sql).all(accountId, page.afterSeq, page.untilSeq, from, to, ...types, page.limit) as unknown as Row[]).map(row);
  }
}
