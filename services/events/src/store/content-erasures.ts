import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ERASED_TEXT, HistoryContent } from '@switchboard/contracts';
import type { PublicEvent } from '@switchboard/contracts';
import { inImmediateTransaction } from '@switchboard/eventstore';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS content_erasures (
  account_id TEXT PRIMARY KEY,
  erased_at  TEXT NOT NULL
) WITHOUT ROWID`;

/** The fields of a history item that carry what a message says (text, media, place, card, …). */
const CONTENT_FIELDS: readonly string[] = Object.keys(HistoryContent.shape);

/** Only `message.received` carries a message's content (its history item); the other events carry none. */
const WITH_CONTENT = 'message.received';

/**
 * A `message.received` with its content replaced as the history shows an erased message: no
 * content field of its type, `text` reading `[erased]` (ids, parties, type and times stay).
 */
export function erasedCopy(event: PublicEvent): PublicEvent {
  if (event.type !== WITH_CONTENT || event.data.erased) return event;
  const kept = Object.fromEntries(Object.entries(event.data).filter(([field]) => !CONTENT_FIELDS.includes(field)));
  return { ...event, data: { ...kept, text: ERASED_TEXT, erased: true } as typeof event.data };
}

/**
 * Crypto-shredding reaches this service's own copies (issue 16): the public events it recorded
 * (what replays and the live stream read) and the webhook deliveries (what a retry sends) hold
 * the contents of received messages as they were when recorded. An erasure rewrites those of the
 * account's messages received up to `erasedAt`, and is remembered, so an event of such a message
 * that reaches the intake afterwards (read from the source a moment before the erasure) is
 * recorded erased too.
 */
export class ContentErasures {
  private readonly events: StatementSync;
  private readonly rewriteEvent: StatementSync;
  private readonly rewriteDeliveries: StatementSync;
  private readonly remember: StatementSync;
  private readonly erasedAt: StatementSync;

  constructor(private readonly db: DatabaseSync) {
    db.exec(SCHEMA);
    this.events = db.prepare(`SELECT seq, body FROM public_events WHERE account_id = ? AND type = '${WITH_CONTENT}' AND timestamp <= ?`);
    this.rewriteEvent = db.prepare('UPDATE public_events SET body = ? WHERE seq = ?');
    this.rewriteDeliveries = db.prepare('UPDATE deliveries SET body = ? WHERE event_id = ? AND account_id = ?');
    this.remember = db.prepare(`INSERT INTO content_erasures (account_id, erased_at) VALUES (?, ?)
      ON CONFLICT (account_id) DO UPDATE SET erased_at = MAX(erased_at, excluded.erased_at)`);
    this.erasedAt = db.prepare('SELECT erased_at FROM content_erasures WHERE account_id = ?');
  }

  /**
   * Rewrites the account's recorded contents up to `erasedAt`, in one transaction; what it changed.
   * The old bytes are overwritten in the file (`secure_delete` for this write) and the write-ahead
   * log is folded in and truncated, so the contents are not left on the disk either.
   */
  erase(accountId: string, erasedAt: string): { eventsErased: number; deliveriesErased: number } {
    this.db.exec('PRAGMA secure_delete = ON');
    try {
      const erased = this.rewrite(accountId, erasedAt);
      this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      return erased;
    } finally {
      this.db.exec('PRAGMA secure_delete = OFF');
    }
  }

  private rewrite(accountId: string, erasedAt: string): { eventsErased: number; deliveriesErased: number } {
    return inImmediateTransaction(this.db, () => {
      this.remember.run(accountId, erasedAt);
      let eventsErased = 0;
      let deliveriesErased = 0;
      for (const row of this.events.all(accountId, erasedAt) as { seq: number; body: string }[]) {
        const event = JSON.parse(row.body) as PublicEvent;
        const erased = erasedCopy(event);
        if (erased === event) continue;
        const body = JSON.stringify(erased);
        this.rewriteEvent.run(body, row.seq);
        eventsErased += 1;
        deliveriesErased += Number(this.rewriteDeliveries.run(body, event.id, accountId).changes);
      }
      return { eventsErased, deliveriesErased };
    });
  }

  /** The event as it may be recorded now: erased when its message was received up to its account's erasure. */
  scrub(accountId: string, event: PublicEvent): PublicEvent {
    if (event.type !== WITH_CONTENT) return event;
    const erased = (this.erasedAt.get(accountId) as { erased_at: string } | undefined)?.erased_at;
    return erased !== undefined && event.timestamp <= erased ? erasedCopy(event) : event;
  }
}
