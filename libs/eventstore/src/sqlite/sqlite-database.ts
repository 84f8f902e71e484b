import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { processMetrics } from '@switchboard/telemetry';
import { preparePrivateSqliteFile } from '../private-files.js';

export interface SqliteTuning {
  /** How long a writer waits for another connection's write lock before failing (ms). */
  busyTimeoutMs?: number;
}

// Positions come from AUTOINCREMENT, so a deleted tail is never reused and a projection's
// checkpoint can never point at a different event later. UNIQUE (stream, revision) is the
// last line of defence: even a writer that skipped the revision check cannot win a revision twice.
export const eventsSchema = `
CREATE TABLE IF NOT EXISTS events (
  position    INTEGER PRIMARY KEY AUTOINCREMENT,
  id          TEXT    NOT NULL UNIQUE,
  stream      TEXT    NOT NULL,
  category    TEXT    NOT NULL,
  revision    INTEGER NOT NULL,
  type        TEXT    NOT NULL,
  data        TEXT    NOT NULL,
  metadata    TEXT    NOT NULL,
  recorded_at INTEGER NOT NULL,
  UNIQUE (stream, revision)
);
CREATE INDEX IF NOT EXISTS events_by_category ON events (category, position);
`;

/**
 * Opens (and creates, with its folder, owner-only) a SQLite file tuned for several processes
 * sharing it, with `schema` (empty: the caller creates its tables later):
 * WAL lets readers run beside the single writer, synchronous=NORMAL keeps every committed
 * append across a process crash (only an OS crash or power loss may drop the last commits),
 * and the busy timeout makes a second writer wait for the lock instead of failing.
 */
export function openSqliteDatabase(file: string, schema: string, tuning: SqliteTuning = {}): DatabaseSync {
  preparePrivateSqliteFile(file);
  const db = new DatabaseSync(file);
  try {
    const patienceMs = tuning.busyTimeoutMs ?? 10_000;
    db.exec(`PRAGMA busy_timeout = ${patienceMs}`);
    switchToWal(db, patienceMs);
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec('PRAGMA foreign_keys = ON');
    // IMMEDIATE so that two processes creating the schema at once queue instead of racing.
    if (schema) inImmediateTransaction(db, () => db.exec(schema));
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * `PRAGMA journal_mode = WAL`, retried while another connection holds the write lock. On a file
 * still in rollback mode (a new one that another process is setting up beside us) the switch reads
 * the header and then upgrades to a write, and SQLite answers that upgrade with SQLITE_BUSY at
 * once instead of calling the busy handler (a reader waiting on a writer could deadlock). Two
 * replicas starting on one fresh data dir failed that way.
 */
function switchToWal(db: DatabaseSync, patienceMs: number): void {
  const giveUpAt = performance.now() + patienceMs;
  for (;;) {
    try {
      db.exec('PRAGMA journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { errcode?: number }).errcode !== SQLITE_BUSY || performance.now() >= giveUpAt) throw error;
      // Opening is synchronous (as SQLite's own busy handler is): wait without spinning.
      Atomics.wait(WAIT_CELL, 0, 0, WAL_SWITCH_RETRY_MS);
    }
  }
}

/** SQLITE_BUSY: another connection holds the lock. */
const SQLITE_BUSY = 5;
const WAL_SWITCH_RETRY_MS = 5;
const WAIT_CELL = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs `work` in a `BEGIN IMMEDIATE` transaction: the write lock is taken up front, so the
 * revision check and the inserts cannot interleave with another writer's. Every write
 * transaction of the project goes through here: `switchboard_sqlite_transactions_total` counts them.
 */
export function inImmediateTransaction<T>(db: DatabaseSync, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  return commitOrRollBack(db, work);
}

/**
 * Runs the reads of `work` on one snapshot: what they return agrees even while other connections
 * commit, and SQLite takes its WAL read lock once instead of once per statement. Not counted as a
 * transaction (nothing is written); `work` must not write. Inside a transaction already open on
 * the connection, `work` simply runs in it.
 */
export function inReadTransaction<T>(db: DatabaseSync, work: () => T): T {
  if (db.isTransaction) return work();
  db.exec('BEGIN');
  return commitOrRollBack(db, work, false);
}

/**
 * Inside a transaction begun by the caller: `work`, then COMMIT (counted as a write transaction
 * unless `counted` is false), or ROLLBACK on a throw (the work's own error is the one thrown).
 */
function commitOrRollBack<T>(db: DatabaseSync, work: () => T, counted = true): T {
  try {
    const result = work();
    db.exec('COMMIT');
    if (counted) processMetrics().sqliteTransactions.inc({ database: databaseNameOf(db) });
    return result;
  } catch (error) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw error;
  }
}

/**
 * `inImmediateTransaction`, but waiting for another connection's write lock off the event loop:
 * the busy timeout would block the whole process (every read it serves) while, say, a projection
 * rebuild swaps a read model in. Tries with no busy wait, and again every `retryMs` until the
 * connection's own busy timeout has passed.
 */
export async function inImmediateTransactionWhenFree<T>(db: DatabaseSync, work: () => T, retryMs = 5): Promise<T> {
  const patience = busyTimeoutOf(db);
  for (let waited = 0; !tryBeginImmediate(db, patience); waited += retryMs) {
    if (waited >= patience) throw new Error(`${databaseNameOf(db)}: database is locked (waited ${patience} ms for the write lock)`);
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
  return commitOrRollBack(db, work);
}

function tryBeginImmediate(db: DatabaseSync, patience: number): boolean {
  db.exec('PRAGMA busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
    return true;
  } catch (error) {
    if ((error as { errcode?: number }).errcode === SQLITE_BUSY) return false;
    throw error;
  } finally {
    db.exec(`PRAGMA busy_timeout = ${patience}`);
  }
}

const busyTimeouts = new WeakMap<DatabaseSync, number>();

/** The busy timeout the connection was opened with, read once. */
function busyTimeoutOf(db: DatabaseSync): number {
  let timeout = busyTimeouts.get(db);
  if (timeout === undefined) {
    timeout = Number((db.prepare('PRAGMA busy_timeout').get() as { timeout: number }).timeout);
    busyTimeouts.set(db, timeout);
  }
  return timeout;
}

const databaseNames = new WeakMap<DatabaseSync, string>();

/**
 * `messaging/events.sqlite` (its folder and name: each service keeps an `events.sqlite` in a folder
 * of its own), `memory` for an in-memory database; looked up once per connection.
 */
function databaseNameOf(db: DatabaseSync): string {
  let name = databaseNames.get(db);
  if (name === undefined) {
    const location = db.location();
    name = location ? `${path.basename(path.dirname(location))}/${path.basename(location)}` : 'memory';
    databaseNames.set(db, name);
  }
  return name;
}
