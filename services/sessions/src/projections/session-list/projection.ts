import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { sessionEventParser } from '@switchboard/contracts';
import type { SessionEvent, SessionStatus } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';
import type { Projection } from '@switchboard/service-kit';
import { toRawEvent } from '@switchboard/service-kit';
import { evolveRow } from './row.js';
import type { SessionListRow } from './row.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS session_list (
  session_id    TEXT PRIMARY KEY,
  account_id    TEXT NOT NULL,
  name          TEXT,
  status        TEXT NOT NULL,
  status_reason TEXT,
  created_at    TEXT NOT NULL,
  last_activity TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS session_list_by_account ON session_list (account_id, created_at DESC, session_id DESC);
CREATE INDEX IF NOT EXISTS session_list_by_status ON session_list (status);`;

/** Bump to rebuild the table from zero at the next start (the runner's checkpoint name). */
export const SESSION_LIST_PROJECTION = 'session-list-v2';

interface DbRow {
  session_id: string;
  account_id: string;
  name: string | null;
  status: string;
  /** JSON of `statusReason`, or null. */
  status_reason: string | null;
  created_at: string;
  last_activity: string;
}

/**
 * The session list read model: one SQLite row per visible session, kept by a ProjectionRunner.
 * A batch's events move the rows in memory (each read once per batch) and `flush` writes each
 * changed row once.
 */
export class SessionListProjection implements Projection {
  readonly name = SESSION_LIST_PROJECTION;
  readonly category = 'session';
  private readonly select: StatementSync;
  private readonly upsert: StatementSync;
  private readonly remove: StatementSync;
  /** The rows the batch being applied changed, by session id (null: not listed any more). */
  private readonly changed = new Map<string, SessionListRow | null>();

  constructor(db: DatabaseSync) {
    db.exec(SCHEMA);
    // A table of v1 (no reasons) gains the column; v2's replay from zero fills it.
    const columns = db.prepare('PRAGMA table_info(session_list)').all() as { name: string }[];
    if (!columns.some((column) => column.name === 'status_reason')) db.exec('ALTER TABLE session_list ADD COLUMN status_reason TEXT');
    this.select = db.prepare('SELECT * FROM session_list WHERE session_id = ?');
    this.upsert = db.prepare(
      'INSERT INTO session_list (session_id, account_id, name, status, status_reason, created_at, last_activity) VALUES (?, ?, ?, ?, ?, ?, ?) ' +
        'ON CONFLICT (session_id) DO UPDATE SET name = excluded.name, status = excluded.status, status_reason = excluded.status_reason, last_activity = excluded.last_activity',
    );
    this.remove = db.prepare('DELETE FROM session_list WHERE session_id = ?');
  }

  apply(recorded: RecordedEvent): void {
    const event = sessionEventParser.decode(toRawEvent(recorded)) as SessionEvent;
    const sessionId = event.data.sessionId;
    const current = this.changed.has(sessionId) ? this.changed.get(sessionId)! : this.stored(sessionId);
    this.changed.set(sessionId, evolveRow(current, event));
  }

  flush(): void {
    try {
      for (const [sessionId, row] of this.changed) {
        if (row === null) this.remove.run(sessionId);
        else {
          const reason = row.statusReason === null ? null : JSON.stringify(row.statusReason);
          this.upsert.run(row.sessionId, row.accountId, row.name, row.status, reason, row.createdAt, row.lastActivity);
        }
      }
    } finally {
      this.changed.clear();
    }
  }

  private stored(sessionId: string): SessionListRow | null {
    const row = this.select.get(sessionId) as DbRow | undefined;
    return row ? fromDb(row) : null;
  }
}

export function fromDb(row: DbRow): SessionListRow {
  return {
    sessionId: row.session_id,
    status: row.status as SessionStatus,
    statusReason: row.status_reason === null ? null : (JSON.parse(row.status_reason) as SessionListRow['statusReason']),
    name: row.name,
    createdAt: row.created_at,
    lastActivity: row.last_activity,
    accountId: row.account_id,
  };
}

export type { DbRow };
