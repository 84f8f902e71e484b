import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { inImmediateTransaction, openSqliteDatabase } from '@switchboard/eventstore';
import { SecretCipher } from '@switchboard/service-kit';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS chat_credentials (
  session_id TEXT NOT NULL,
  kind       TEXT NOT NULL,
  key_id     TEXT NOT NULL,
  value      BLOB NOT NULL,
  PRIMARY KEY (session_id, kind, key_id)
) WITHOUT ROWID`;

/** The row holding Baileys' `creds`; Signal keys use their own kind (`pre-key`, `session`, …). */
export const CREDS_KIND = 'creds';

/** One row to write: `value` null deletes it. */
export interface CredentialsRow {
  kind: string;
  keyId: string;
  value: Buffer | null;
}

/**
 * Chat credentials of every session of this service, in the service's own SQLite file,
 * each value sealed with AES-256-GCM. Values are opaque bytes here; serialization is the
 * caller's business.
 */
export class SqliteCredentialsStore {
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

  read(sessionId: string, kind: string, keyId: string): Buffer | undefined {
    const row = this.#select.get(sessionId, kind, keyId) as { value: Uint8Array } | undefined;
    return row ? this.#cipher.open(row.value, associatedData(sessionId, kind, keyId)) : undefined;
  }

  /** Writes all rows in one transaction, so a crash never leaves half a key update. */
  write(sessionId: string, rows: readonly CredentialsRow[]): void {
    if (rows.length === 0) return;
    inImmediateTransaction(this.#db, () => {
      for (const { kind, keyId, value } of rows) {
        if (value === null) this.#delete.run(sessionId, kind, keyId);
        else this.#upsert.run(sessionId, kind, keyId, this.#cipher.seal(value, associatedData(sessionId, kind, keyId)));
      }
    });
  }

  /** Removes every row of the session: after this, it has to pair again. */
  wipe(sessionId: string): void {
    this.#wipe.run(sessionId);
  }

  rowCount(sessionId: string): number {
    return Number((this.#count.get(sessionId) as { rows: number | bigint }).rows);
  }

  close(): void {
    if (this.#db.isOpen) this.#db.close();
  }
}

function associatedData(sessionId: string, kind: string, keyId: string): string {
  return `chat-credentials\u0000${sessionId}\u0000${kind}\u0000${keyId}`;
}
