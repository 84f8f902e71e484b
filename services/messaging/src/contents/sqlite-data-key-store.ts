import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { inImmediateTransaction, openSqliteDatabase } from '@switchboard/eventstore';
import type { DataKeyStore, StoredDataKey } from './data-key-store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS data_keys (
  account_id TEXT PRIMARY KEY,
  key_id     TEXT NOT NULL,
  wrapped    BLOB NOT NULL,
  created_at TEXT NOT NULL
) WITHOUT ROWID`;

interface Row {
  account_id: string;
  key_id: string;
  wrapped: Uint8Array;
  created_at: string;
}

const toKey = (r: Row): StoredDataKey => ({ accountId: r.account_id, keyId: r.key_id, wrapped: r.wrapped, createdAt: r.created_at });

/**
 * `DataKeyStore` in a SQLite file of the service's own (`<dataDir>/messaging/data-keys.sqlite`,
 * owner-only), the embedded mode's. A destroyed key is gone from the file: `secure_delete`
 * overwrites the deleted row with zeros, and the write-ahead log (which held the page with the key
 * when it was written) is checkpointed into the file and truncated right after.
 */
export class SqliteDataKeyStore implements DataKeyStore {
  readonly #db: DatabaseSync;
  readonly #select: StatementSync;
  readonly #insert: StatementSync;
  readonly #delete: StatementSync;

  constructor(path: string) {
    this.#db = openSqliteDatabase(path, SCHEMA, { busyTimeoutMs: 5000 });
    this.#db.exec('PRAGMA secure_delete = ON');
    this.#select = this.#db.prepare('SELECT account_id, key_id, wrapped, created_at FROM data_keys WHERE account_id = ?');
    this.#insert = this.#db.prepare('INSERT INTO data_keys (account_id, key_id, wrapped, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (account_id) DO NOTHING');
    this.#delete = this.#db.prepare('DELETE FROM data_keys WHERE account_id = ? AND key_id = ?');
  }

  current(accountId: string): Promise<StoredDataKey | undefined> {
    return settled(() => {
      const row = this.#select.get(accountId) as Row | undefined;
      return row ? toKey(row) : undefined;
    });
  }

  create(key: StoredDataKey): Promise<StoredDataKey> {
    return settled(() =>
      inImmediateTransaction(this.#db, () => {
        this.#insert.run(key.accountId, key.keyId, key.wrapped, key.createdAt);
        return toKey(this.#select.get(key.accountId) as unknown as Row);
      }),
    );
  }

  destroy(accountId: string, keyId: string): Promise<boolean> {
    return settled(() => {
      const removed = inImmediateTransaction(this.#db, () => this.#delete.run(accountId, keyId).changes === 1);
      // The WAL frames written with the key move into the (now zeroed) file, and the log is cut to nothing.
      if (removed) this.#db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      return removed;
    });
  }

  close(): Promise<void> {
    return settled(() => this.#db.close());
  }
}

/** Runs synchronous work as a settled promise (errors become rejections). */
function settled<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error as Error);
  }
}
