import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { CheckpointStore } from '../checkpoint-store.js';
import type { SubscriptionStart } from '../event-store.js';
import { openSqliteDatabase } from './sqlite-database.js';

const checkpointsSchema =
  'CREATE TABLE IF NOT EXISTS checkpoints (name TEXT PRIMARY KEY, position INTEGER NOT NULL, updated_at INTEGER NOT NULL)';

/**
 * Checkpoints in a SQLite file. Give it the projection's own read-model database (`fromDatabase`)
 * and call `saveSync` inside the transaction that updates the document, so the document and
 * its checkpoint can never disagree after a crash.
 */
export class SqliteCheckpointStore implements CheckpointStore {
  readonly #db: DatabaseSync;
  readonly #ownsDatabase: boolean;
  #save: StatementSync | undefined;
  #load: StatementSync | undefined;

  private constructor(db: DatabaseSync, ownsDatabase: boolean) {
    this.#db = db;
    this.#ownsDatabase = ownsDatabase;
    db.exec(checkpointsSchema);
  }

  /** Opens (and creates) a file of its own, or the event store's file. */
  static open(file: string): SqliteCheckpointStore {
    return new SqliteCheckpointStore(openSqliteDatabase(file, checkpointsSchema), true);
  }

  /** Shares a connection the caller owns; `close()` leaves it open. */
  static fromDatabase(db: DatabaseSync): SqliteCheckpointStore {
    return new SqliteCheckpointStore(db, false);
  }

  async load(name: string): Promise<SubscriptionStart> {
    return this.loadSync(name);
  }

  async save(name: string, position: bigint): Promise<void> {
    this.saveSync(name, position);
  }

  loadSync(name: string): SubscriptionStart {
    // Prepared once: a projection runner reads its checkpoint with every batch it applies.
    if (this.#load === undefined) {
      this.#load = this.#db.prepare('SELECT position FROM checkpoints WHERE name = ?');
      this.#load.setReadBigInts(true);
    }
    const row = this.#load.get(name) as { position: bigint } | undefined;
    return row?.position ?? 'start';
  }

  saveSync(name: string, position: bigint): void {
    // Prepared once: a projection saves its checkpoint with every event it applies.
    this.#save ??= this.#db.prepare(
      'INSERT INTO checkpoints (name, position, updated_at) VALUES (?, ?, ?) ' +
        'ON CONFLICT (name) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at',
    );
    this.#save.run(name, position, Date.now());
  }

  async close(): Promise<void> {
    if (this.#ownsDatabase && this.#db.isOpen) this.#db.close();
  }
}
