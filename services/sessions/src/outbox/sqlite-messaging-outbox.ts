import { randomUUID } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import { openSqliteDatabase, TurnBatchedWrites } from '@switchboard/eventstore';
import type { MessagingOutbox, OutboxDelivery, OutboxEntry } from './messaging-outbox.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS messaging_outbox (
  seq      INTEGER PRIMARY KEY AUTOINCREMENT,
  entry_id TEXT    NOT NULL UNIQUE,
  subject  TEXT    NOT NULL,
  command  TEXT    NOT NULL,
  added_at INTEGER NOT NULL
);`;

interface StoredEntry {
  /** Unique per entry; removal is by this id. */
  id: string;
  entry: OutboxEntry;
}

/**
 * `MessagingOutbox` in a SQLite file of the sessions service (the embedded mode: one process sends
 * what it wrote). What the file holds at open is queued first, oldest first: what a restart sends
 * again. Adds coalesce per event-loop turn (one commit, then each `add()` resolves); removals
 * coalesce the same way and are not awaited: a removal lost to a crash only sends an entry once
 * more, which messaging records once.
 */
export class SqliteMessagingOutbox implements MessagingOutbox {
  readonly #db: DatabaseSync;
  readonly #adds: TurnBatchedWrites<StoredEntry>;
  readonly #removes: TurnBatchedWrites<string>;
  /** Written and not handed out (or handed back), in the order they go out. */
  readonly #queue: StoredEntry[];
  /** Takers waiting for an entry. */
  readonly #waiting = new Set<() => void>();

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
    this.#queue = this.#stored();
  }

  async add(entry: OutboxEntry): Promise<void> {
    const stored = { id: randomUUID(), entry };
    await this.#adds.add(stored);
    this.#queue.push(stored);
    this.#wakeTaker();
  }

  async *take(max: number, signal: AbortSignal): AsyncIterable<OutboxDelivery> {
    while (this.#queue.length === 0) {
      if (signal.aborted || !this.#db.isOpen) return;
      await this.#arrival(signal);
    }
    const batch = this.#queue.splice(0, max);
    try {
      while (batch.length > 0 && !signal.aborted) yield this.#delivery(batch.shift()!);
    } finally {
      // Not handed out (the taker stopped early): first in line again.
      this.#queue.unshift(...batch);
    }
  }

  async backlog(): Promise<number> {
    return (this.#db.prepare('SELECT COUNT(*) AS n FROM messaging_outbox').get() as { n: number }).n;
  }

  async close(): Promise<void> {
    if (!this.#db.isOpen) return;
    this.#adds.flush();
    this.#removes.flush();
    this.#db.close();
    this.#wakeTaker();
  }

  #delivery(stored: StoredEntry): OutboxDelivery {
    return {
      entry: stored.entry,
      done: () => this.#remove(stored.id),
      drop: () => this.#remove(stored.id),
      // First in line again; the one sender of this file pauses before it takes anything more.
      retryLater: () => {
        this.#queue.unshift(stored);
        this.#wakeTaker();
      },
    };
  }

  #remove(id: string): void {
    // A removal that cannot be written (or comes after close) leaves the entry to be sent once more after a restart.
    this.#removes.add(id).catch(() => undefined);
  }

  #arrival(signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        this.#waiting.delete(done);
        resolve();
      };
      this.#waiting.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  #wakeTaker(): void {
    for (const wake of [...this.#waiting]) wake();
  }

  #stored(): StoredEntry[] {
    const rows = this.#db.prepare('SELECT entry_id, subject, command FROM messaging_outbox ORDER BY seq').all() as { entry_id: string; subject: string; command: string }[];
    return rows.map((r) => ({ id: r.entry_id, entry: { subject: r.subject, command: JSON.parse(r.command) } as OutboxEntry }));
  }
}
