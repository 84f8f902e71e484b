import type { DatabaseSync } from 'node:sqlite';

/** The quota read models: keys by hash, accounts with their slots, and units per account per day. */
export function createReadModelSchema(db: DatabaseSync): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS quota_accounts (
      account_id TEXT PRIMARY KEY,
      name TEXT,
      plan TEXT NOT NULL,
      active_sessions INTEGER NOT NULL DEFAULT 0,
      opened_at TEXT NOT NULL,
      closed_at TEXT,
      position INTEGER NOT NULL
    );
    CREATE INDEX IF NOT EXISTS quota_accounts_by_position ON quota_accounts (position);
    CREATE TABLE IF NOT EXISTS quota_keys (
      key_hash TEXT PRIMARY KEY,
      key_id TEXT NOT NULL UNIQUE,
      account_id TEXT NOT NULL,
      scopes TEXT NOT NULL,
      created_at TEXT NOT NULL,
      revoked_at TEXT
    );
    CREATE INDEX IF NOT EXISTS quota_keys_by_account ON quota_keys (account_id, created_at);
    CREATE TABLE IF NOT EXISTS quota_daily_usage (
      account_id TEXT NOT NULL,
      day TEXT NOT NULL,
      used INTEGER NOT NULL,
      PRIMARY KEY (account_id, day)
    );
  `);
}
