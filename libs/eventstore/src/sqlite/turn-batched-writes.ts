import type { DatabaseSync } from 'node:sqlite';
import { inImmediateTransaction } from './sqlite-database.js';

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Writes that coalesce: every item added in one event-loop turn is written in ONE transaction at
 * the end of that turn, and each `add()` resolves after that commit (durable across a SIGKILL of
 * the process from then on). A busy process pays one commit per turn, not one per item.
 */
export class TurnBatchedWrites<T> {
  #waiting: Waiting<T>[] = [];

  constructor(
    private readonly db: DatabaseSync,
    /** Writes the items (inside the transaction). */
    private readonly write: (items: readonly T[]) => void,
    /** After each commit, before any `add()` resolves: what the writer does once its writes are durable. */
    private readonly committed: () => void = () => undefined,
  ) {}

  add(item: T): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      if (this.#waiting.length === 1) setImmediate(() => this.flush());
    });
  }

  /** Commits what is waiting now (a close calls it first: an answer already promised keeps its write). */
  flush(): void {
    const batch = this.#waiting;
    this.#waiting = [];
    if (batch.length === 0) return;
    if (!this.db.isOpen) return batch.forEach((w) => w.reject(new Error('the database is closed')));
    try {
      inImmediateTransaction(this.db, () => this.write(batch.map((w) => w.item)));
    } catch (error) {
      return batch.forEach((w) => w.reject(error));
    }
    this.committed();
    for (const w of batch) w.resolve();
  }
}
