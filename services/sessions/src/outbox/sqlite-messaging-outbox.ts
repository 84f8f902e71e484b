import { randomUUID } from 'node:crypto';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { inImmediateTransaction, openSqliteDatabase, TurnBatchedWrites } from '@switchboard/eventstore';
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

/** How long a delivered entry's removal waits for an add to ride with before it is written alone (or tried again). */
const REMOVAL_DELAY_MS = 1_000;

/**
 * `MessagingOutbox` in a SQLite file of the sessions service (the embedded mode: one process sends
 * what it wrote). What the file holds at open is queued first, oldest first: what a restart sends
 * again. Adds coalesce per event-loop turn (one commit, then each `add()` resolves). Removals of
 * delivered or dropped entries are not awaited: they ride in the next add's commit, or get one of
 * their own `REMOVAL_DELAY_MS` after the first of them if no add came (and at close), so a steady
 * flow of receipts pays one commit each instead of two. A removal not yet written when the process
 * dies hands the entry out once more after the restart: messaging records a receipt once, and
 * refuses a dropped entry again.
 */
export class SqliteMessagingOutbox implements MessagingOutbox {
  readonly #db: DatabaseSync;
  readonly #adds: TurnBatchedWrites<StoredEntry>;
  readonly #remove: StatementSync;
  /** Entries delivered or dropped whose rows are still in the file. */
  readonly #settled = new Set<string>();
  /** Those whose rows the transaction under way deletes (forgotten once it has committed). */
  #deleting: string[] = [];
  #removalTimer: NodeJS.Timeout | undefined;
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
    this.#remove = this.#db.prepare('DELETE FROM messaging_outbox WHERE entry_id = ?');
    this.#adds = new TurnBatchedWrites(this.#db, (stored) => {
      const addedAt = this.now();
      for (const { id, entry } of stored) insert.run(id, entry.subject, JSON.stringify(entry.command), addedAt);
      this.#deleteSettled();
    }, () => this.#deleted());
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
    const rows = (this.#db.prepare('SELECT COUNT(*) AS n FROM messaging_outbox').get() as { n: number }).n;
    return rows - this.#settled.size;
  }

  async close(): Promise<void> {
    if (!this.#db.isOpen) return;
    this.#adds.flush();
    // The removals now rather than at the timer; one that fails again is sent once more after a restart.
    clearTimeout(this.#removalTimer);
    this.#removeAlone();
    clearTimeout(this.#removalTimer);
    this.#db.close();
    this.#wakeTaker();
  }

  #delivery(stored: StoredEntry): OutboxDelivery {
    return {
      entry: stored.entry,
      done: () => this.#settle(stored.id),
      drop: () => this.#settle(stored.id),
      // First in line again; the one sender of this file pauses before it takes anything more.
      retryLater: () => {
        this.#queue.unshift(stored);
        this.#wakeTaker();
      },
    };
  }

  #settle(id: string): void {
    if (!this.#db.isOpen) return;
    this.#settled.add(id);
    this.#removalTimer ??= setTimeout(() => this.#removeAlone(), REMOVAL_DELAY_MS).unref();
  }

  /**
   * Inside a write transaction: deletes the settled entries' rows. One that fails (SQLite undoes
   * that statement alone, the transaction goes on) stays settled and is tried again later: a
   * removal never costs the entries written beside it.
   */
  #deleteSettled(): void {
    this.#deleting = [];
    for (const id of this.#settled) {
      try {
        this.#remove.run(id);
        this.#deleting.push(id);
      } catch {
        // Left settled: the next commit or the timer tries it again.
      }
    }
  }

  /** The commit that carried `#deleting` is done: those rows are gone. */
  #deleted(): void {
    for (const id of this.#deleting) this.#settled.delete(id);
    this.#deleting = [];
    if (this.#settled.size === 0) {
      clearTimeout(this.#removalTimer);
      this.#removalTimer = undefined;
    }
  }

  /** The settled entries' rows deleted in a commit of their own (no add came to carry them); what fails is tried again later. */
  #removeAlone(): void {
    this.#removalTimer = undefined;
    if (this.#settled.size === 0 || !this.#db.isOpen) return;
    try {
      inImmediateTransaction(this.#db, () => this.#deleteSettled());
      this.#deleted();
    } catch {
      this.#deleting = [];
    }
    if (this.#settled.size > 0 && this.#db.isOpen) this.#removalTimer = setTimeout(() => this.#removeAlone(), REMOVAL_DELAY_MS).unref();
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
