import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { inImmediateTransaction, openSqliteDatabase } from '@switchboard/eventstore';
import { serviceDataDir } from '@switchboard/service-kit';
import type { StoreConfig } from '@switchboard/service-kit';

/**
 * The events service's own state beside its event store (`<dataDir>/events/dispatch.sqlite`):
 * where each source's feed was read up to, the public events it recorded (the per-account feed
 * that replays and the live stream read), deliveries with their attempts, and sealed secrets.
 * None of it can be rebuilt from the webhook streams, so it is not a read model: it is never
 * deleted. (The webhook list read model lives here too, with its own checkpoint.)
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS intake_checkpoints (
  source   TEXT PRIMARY KEY,
  position TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS public_events (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id    TEXT NOT NULL UNIQUE,
  account_id  TEXT NOT NULL,
  session_id  TEXT,
  type        TEXT NOT NULL,
  timestamp   TEXT NOT NULL,
  body        TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS public_events_by_account ON public_events (account_id, seq);
CREATE TABLE IF NOT EXISTS deliveries (
  delivery_id     INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id      TEXT NOT NULL,
  account_id      TEXT NOT NULL,
  event_id        TEXT NOT NULL,
  event_type      TEXT NOT NULL,
  session_key     TEXT NOT NULL,
  body            TEXT NOT NULL,
  state           TEXT NOT NULL,
  attempts        INTEGER NOT NULL DEFAULT 0,
  last_status     INTEGER,
  last_error      TEXT,
  last_attempt_at INTEGER,
  next_attempt_at INTEGER,
  created_at      INTEGER NOT NULL,
  is_head         INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS deliveries_queue ON deliveries (webhook_id, state, session_key, delivery_id);
CREATE INDEX IF NOT EXISTS deliveries_order ON deliveries (webhook_id, state, delivery_id);
CREATE INDEX IF NOT EXISTS deliveries_due ON deliveries (state, next_attempt_at);
CREATE TABLE IF NOT EXISTS webhook_secrets (
  webhook_id  TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  sealed      BLOB NOT NULL,
  PRIMARY KEY (webhook_id, fingerprint)
) WITHOUT ROWID;
`;

/**
 * `is_head` marks the oldest pending delivery of each (webhook, session): the only one that may be
 * attempted. Files made before it existed get the column and their heads marked once.
 */
const HEADS = `
CREATE INDEX IF NOT EXISTS deliveries_heads ON deliveries (webhook_id, next_attempt_at) WHERE state = 'pending' AND is_head = 1;`;

function markHeads(db: DatabaseSync): void {
  const columns = db.prepare('PRAGMA table_info(deliveries)').all() as { name: string }[];
  if (columns.some((c) => c.name === 'is_head')) return;
  db.exec(`ALTER TABLE deliveries ADD COLUMN is_head INTEGER NOT NULL DEFAULT 0;
    UPDATE deliveries SET is_head = 1 WHERE state = 'pending' AND delivery_id IN
      (SELECT MIN(delivery_id) FROM deliveries WHERE state = 'pending' GROUP BY webhook_id, session_key);`);
}

/** `<dataDir>/events/dispatch.sqlite`. */
export function dispatchDatabaseFile(config: StoreConfig): string {
  return join(serviceDataDir('events', config), 'dispatch.sqlite');
}

export function openDispatchDatabase(config: StoreConfig): DatabaseSync {
  const db = openSqliteDatabase(dispatchDatabaseFile(config), SCHEMA);
  try {
    inImmediateTransaction(db, () => {
      markHeads(db);
      db.exec(HEADS);
    });
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
