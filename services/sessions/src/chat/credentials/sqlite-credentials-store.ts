import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { inImmediateTransaction, openSqliteDatabase } from '@switchboard/eventstore';
import { SecretCipher } from '@switchboard/service-kit';
import { credentialsAssociatedData as associatedData, type CredentialsRow, type CredentialsStore } from './credentials-store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS chat_credentials (
  session_id TEXT NOT NULL,
  kind       TEXT NOT NULL,
  key_id     TEXT NOT NULL,
  value      BLOB NOT NULL,
  PRIMARY KEY (session_id, kind, key_id)
) WITHOUT ROWID`;

/**
 * `CredentialsStore` in the service's own SQLite file (the embedded mode), each value sealed with
 * AES-256-GCM. Synchronous inside: every method has done its work when it returns, and answers
 * with a settled promise.
 */
export class SqliteCredentialsStore implements CredentialsStore {
  readonly #db: DatabaseSync;
  readonly #cipher: SecretCipher;
  readonly #select: StatementSync;
  readonly #upsert: StatementSync;
  readonly #delete: StatementSync;
  readonly #wipe: StatementSync;
  readonly #count: StatementSync;

  constructor(options: { path: string; key: Buffer }) {
    // Owner-only (0600, its -wal and -shm too): these rows are the keys to the user's account.
    this.#db = openSqliteDatabase(options.path, SCHEMA, { busyTimeoutMs: 5000 });
    this.#cipher = new SecretCipher(options.key);
    this.#select = this.#db.prepare('SELECT value FROM chat_credentials WHERE session_id = ? AND kind = ? AND key_id = ?');
    this.#upsert = this.#db.prepare(
      'INSERT INTO chat_credentials (session_id, kind, key_id, value) VALUES (?, ?, ?, ?) ' +
        'ON CONFLICT (session_id, kind, key_id) DO UPDATE SET value = excluded.value',
    );
    this.#delete = this.#db.prepare('DELETE FROM chat_credentials WHERE session_id = ? AND kind = ? AND key_id = ?');
    this.#wipe = this.#db.prepare('DELETE FROM chat_credentials WHERE session_id = ?');
    this.#count = this.#db.prepare('SELECT count(*) AS rows FROM chat_credentials WHERE session_id = ?');
  }

  read(sessionId: string, kind: string, keyId: string): Promise<Buffer | undefined> {
    return settled(() => {
      const row = this.#select.get(sessionId, kind, keyId) as { value: Uint8Array } | undefined;
      return row ? this.#cipher.open(row.value, associatedData(sessionId, kind, keyId)) : undefined;
    });
  }

  /** Writes all rows in one transaction, so a crash never leaves half a key update. */
  write(sessionId: string, rows: readonly CredentialsRow[]): Promise<void> {
    return settled(() => {
      if (rows.length === 0) return;
      inImmediateTransaction(this.#db, () => {
        for (const { kind, keyId, value } of rows) {
          if (value === null) this.#delete.run(sessionId, kind, keyId);
          else this.#upsert.run(sessionId, kind, keyId, this.#cipher.seal(value, associatedData(sessionId, kind, keyId)));
        }
      });
    });
  }

  wipe(sessionId: string): Promise<void> {
    return settled(() => void this.#wipe.run(sessionId));
  }

  rowCount(sessionId: string): Promise<number> {
    return settled(() => Number((this.#count.get(sessionId) as { rows: number | bigint }).rows));
  }

  close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
    return Promise.resolve();
  }
}

/** Runs `work` now, synchronously, and answers its result or failure as a settled promise. */
function settled<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}
