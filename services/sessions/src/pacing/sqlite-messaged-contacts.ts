import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { openSqliteDatabase } from '@switchboard/eventstore';
import { contactHash, MESSAGED_RETENTION_MS } from './messaged-contacts.js';
import type { MessagedContacts } from './messaged-contacts.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS messaged_contacts (
  account_id   TEXT    NOT NULL,
  session_id   TEXT    NOT NULL,
  contact_hash TEXT    NOT NULL,
  first_at     INTEGER NOT NULL,
  seen_at      INTEGER NOT NULL,
  PRIMARY KEY (session_id, contact_hash)
);
CREATE INDEX IF NOT EXISTS messaged_contacts_by_age ON messaged_contacts (seen_at);`;

/**
 * `MessagedContacts` in a SQLite file of the sessions service (embedded mode). `first_at` is the
 * time of the first message to a new contact, 0 for a contact that wrote first (never new: its
 * record only says it is known), as the bucket keeps only first messages to new contacts.
 */
export class SqliteMessagedContacts implements MessagedContacts {
  readonly #db: DatabaseSync;
  readonly #seen: StatementSync;
  readonly #upsert: StatementSync;
  readonly #lastNew: StatementSync;
  readonly #now: () => number;

  constructor(path: string, now: () => number = Date.now) {
    this.#now = now;
    this.#db = openSqliteDatabase(path, SCHEMA);
    this.#db.prepare('DELETE FROM messaged_contacts WHERE seen_at < ?').run(now() - MESSAGED_RETENTION_MS);
    // Past the retention a contact is new again, also in a process that has run that long (the delete above runs at open only).
    this.#seen = this.#db.prepare('SELECT seen_at FROM messaged_contacts WHERE session_id = ? AND contact_hash = ? AND account_id = ? AND seen_at >= ?');
    this.#upsert = this.#db.prepare(
      'INSERT INTO messaged_contacts (account_id, session_id, contact_hash, first_at, seen_at) VALUES (?, ?, ?, ?, ?) ' +
        // A first message to a number already on record: it was past the retention, so new again.
        'ON CONFLICT (session_id, contact_hash) DO UPDATE SET seen_at = max(seen_at, excluded.seen_at), first_at = max(first_at, excluded.first_at)',
    );
    this.#lastNew = this.#db.prepare('SELECT max(first_at) AS at FROM messaged_contacts WHERE session_id = ? AND account_id = ? AND first_at > 0');
  }

  async seen(accountId: string, sessionId: string, phone: string): Promise<number | undefined> {
    const row = this.#seen.get(sessionId, contactHash(phone), accountId, this.#now() - MESSAGED_RETENTION_MS) as { seen_at: number } | undefined;
    return row?.seen_at;
  }

  /** The latest `first_at` of a session is its last first message to a new contact. */
  async remember(accountId: string, sessionId: string, phone: string, at: number, newContact: boolean): Promise<void> {
    this.#upsert.run(accountId, sessionId, contactHash(phone), newContact ? at : 0, at);
  }

  async lastNewContactAt(accountId: string, sessionId: string): Promise<number | undefined> {
    const row = this.#lastNew.get(sessionId, accountId) as { at: number | null } | undefined;
    return row?.at ?? undefined;
  }

  async close(): Promise<void> {
    if (this.#db.isOpen) this.#db.close();
  }
}
