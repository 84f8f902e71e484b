import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { openSqliteDatabase } from '@switchboard/eventstore';
import { ulid } from '@switchboard/service-kit';

const SCHEMA = 'CREATE TABLE IF NOT EXISTS replica_identity (replica_id TEXT NOT NULL)';

export interface ReplicaIdentity {
  replicaId: string;
  /** Whether it is the id of an earlier run on this data dir (its sessions are still this replica's). */
  resumed: boolean;
  release(): void;
}

/**
 * This process's replica id, kept in `<data dir>/replica.sqlite`: a process that restarts on the
 * same data dir (after a crash, or an upgrade in place) is the same replica, so the sessions
 * recorded as its own resume at once instead of waiting for its old lease to run out. The file is
 * held with SQLite's exclusive lock for the process's life (the OS releases it when the process
 * dies): a second process on the same data dir cannot take it, and runs under a new id of its own.
 */
export function holdReplicaIdentity(dataDir: string): ReplicaIdentity {
  let db: DatabaseSync | undefined;
  try {
    db = openSqliteDatabase(join(dataDir, 'replica.sqlite'), SCHEMA, { busyTimeoutMs: 0 });
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    // The first write takes the lock, and exclusive mode keeps it after the commit.
    db.exec('BEGIN IMMEDIATE');
    const stored = db.prepare('SELECT replica_id FROM replica_identity').get() as { replica_id: string } | undefined;
    const replicaId = stored?.replica_id ?? `rep_${ulid()}`;
    if (!stored) db.prepare('INSERT INTO replica_identity (replica_id) VALUES (?)').run(replicaId);
    db.exec('COMMIT');
    const held = db;
    return { replicaId, resumed: stored !== undefined, release: () => held.close() };
  } catch {
    // Held by a live process on this data dir: this one is another replica.
    db?.close();
    return { replicaId: `rep_${ulid()}`, resumed: false, release: () => undefined };
  }
}
