import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openSqliteDatabase, TurnBatchedWrites } from '@switchboard/eventstore';
import type { SentLog, SentRecord } from './sent-log.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sent_messages (
  message_id         TEXT    PRIMARY KEY,
  account_id         TEXT    NOT NULL,
  session_id         TEXT    NOT NULL,
  network_message_id TEXT    NOT NULL,
  sent_at            TEXT    NOT NULL,
  recorded_at        INTEGER NOT NULL,
  from_phone         TEXT
);
CREATE INDEX IF NOT EXISTS sent_messages_by_age ON sent_messages (recorded_at);`;

/** Rows deleted per statement when forgetting old records, so the event loop is never held long. */
const FORGET_BATCH = 5_000;

/**
 * `SentLog` in a SQLite file of the sessions service (WAL, synchronous=NORMAL: a commit survives a
 * SIGKILL of the process; an OS crash may lose the last ones). Records coalesce: every record made
 * in one event-loop turn is committed in one transaction at the end of that turn, and each
 * `record()` resolves after that commit. A busy process thus pays one commit per turn, not per send.
 */
export class SqliteSentLog implements SentLog {
  readonly #db: DatabaseSync;
  readonly #insert: StatementSync;
  readonly #select: StatementSync;
  readonly #forget: StatementSync;
  readonly #writes: TurnBatchedWrites<SentRecord>;

  constructor(
    path: string,
    private readonly now: () => number = Date.now,
  ) {
    this.#db = openSqliteDatabase(path, SCHEMA);
    addSenderColumn(this.#db);
    this.#insert = this.#db.prepare(
      'INSERT INTO sent_messages (message_id, account_id, session_id, network_message_id, sent_at, recorded_at, from_phone) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (message_id) DO NOTHING',
    );
    this.#select = this.#db.prepare(
      'SELECT network_message_id, sent_at, from_phone FROM sent_messages WHERE message_id = ? AND account_id = ? AND session_id = ?',
    );
    this.#forget = this.#db.prepare(
      'DELETE FROM sent_messages WHERE message_id IN (SELECT message_id FROM sent_messages WHERE recorded_at < ? LIMIT ?)',
    );
    this.#writes = new TurnBatchedWrites(this.#db, (records) => {
      const recordedAt = this.now();
      for (const sent of records) this.#insert.run(sent.messageId, sent.accountId, sent.sessionId, sent.networkMessageId, sent.sentAt, recordedAt, sent.from ?? null);
    });
  }

  record(sent: SentRecord): Promise<void> {
    return this.#writes.add(sent);
  }

  async find(accountId: string, sessionId: string, messageId: string): Promise<SentRecord | undefined> {
    const row = this.#select.get(messageId, accountId, sessionId) as { network_message_id: string; sent_at: string; from_phone: string | null } | undefined;
    return row && { accountId, sessionId, messageId, networkMessageId: row.network_message_id, sentAt: row.sent_at, ...(row.from_phone ? { from: row.from_phone } : {}) };
  }

  async forgetBefore(cutoff: Date): Promise<number> {
    let forgotten = 0;
    for (;;) {
      const { changes } = this.#forget.run(cutoff.getTime(), FORGET_BATCH);
      forgotten += Number(changes);
      if (Number(changes) < FORGET_BATCH || !this.#db.isOpen) return forgotten;
      await nextTurn();
    }
  }

  /** Commits what is still waiting first: an answer already promised keeps its record. */
  async close(): Promise<void> {
    if (!this.#db.isOpen) return;
    this.#writes.flush();
    this.#db.close();
  }
}

/** Files written before the sender was kept get its column (records from then on carry it). */
function addSenderColumn(db: DatabaseSync): void {
  const columns = db.prepare('PRAGMA table_info(sent_messages)').all() as { name: string }[];
  if (!columns.some((c) => c.name === 'from_phone')) db.exec('ALTER TABLE sent_messages ADD COLUMN from_phone TEXT');
}
