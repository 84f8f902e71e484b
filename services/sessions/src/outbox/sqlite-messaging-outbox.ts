import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { openSqliteDatabase, TurnBatchedWrites } from '@switchboard/eventstore';
import type { MessagingOutbox, OutboxEntry, StoredEntry } from './messaging-outbox.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS messaging_outbox (
  seq      INTEGER PRIMARY KEY AUTOINCREMENT,
  entry_id TEXT    NOT NULL UNIQUE,
  subject  TEXT    NOT NULL,
  command  TEXT    NOT NULL,
  added_at INTEGER NOT NULL
);`;

/**
 * `MessagingOutbox` in a SQLite file of the sessions service. Adds coalesce per event-loop turn
 * (one commit, then each `add()` resolves); removals coalesce the same way and are not awaited:
 * a removal lost to a crash only sends an entry once more, which messaging records once.
 */
export class SqliteMessagingOutbox implements MessagingOutbox {
  readonly #db: DatabaseSync;
  readonly #adds: TurnBatchedWrites<StoredEntry>;
  readonly #removes: TurnBatchedWrites<string>;

  constructor(
    path: string,
    private readonly now: () => number = Date.now,
  ) {
    this.#db = openSqliteDatabase(path, SCHEMA);
    const insert = this.#db.prepare('INSERT INTO messaging_outbox (entry_id, subject, command, added_at) VALUES (?, ?, ?, ?)');
    const remove = this.#db.prepare('DELETE FROM messaging_outbox WHERE entry_id = ?');
    this.#adds = new TurnBatchedWrites(this.#db, (stored) => {
      const addedAt = this.now();
      for (const { id, entry } of stored) insert.run(id, entry.subject, JSON.stringify(entry.command), addedAt);
    });
    this.#removes = new TurnBatchedWrites(this.#db, (ids) => ids.forEach((id) => remove.run(id)));
  }

  async add(entry: OutboxEntry): Promise<StoredEntry> {
    const stored = { id: randomUUID(), entry };
    await this.#adds.add(stored);
    return stored;
  }

  pending(): StoredEntry[] {
    const rows = this.#db.prepare('SELECT entry_id, subject, command FROM messaging_outbox ORDER BY seq').all() as { entry_id: string; subject: string; command: string }[];
    return rows.map((r) => ({ id: r.entry_id, entry: { subject: r.subject, command: JSON.parse(r.command) } as OutboxEntry }));
  }

  remove(id: string): void {
    // A removal that cannot be written leaves the entry to be sent once more after a restart.
    this.#removes.add(id).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (!this.#db.isOpen) return;
    this.#adds.flush();
    this.#removes.flush();
    this.#db.close();
  }
}
