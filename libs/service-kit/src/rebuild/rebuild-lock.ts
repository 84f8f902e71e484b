import type { DatabaseSync } from 'node:sqlite';
import { openSqliteDatabase } from '@switchboard/eventstore';

/** Another rebuild of the same read model is running (another CLI, or the service asked over the bus). */
export class RebuildInProgressError extends Error {
  override readonly name = 'RebuildInProgressError';
}

/**
 * One rebuild of a read model at a time, across processes: held as the write lock of a small
 * SQLite file, which the operating system lets go when the process dies, so a crashed rebuild
 * never leaves a stale lock behind (a pid in a file would, and pids repeat in containers). The
 * file stays: removing it could let two processes lock two different files by one name.
 */
const SQLITE_BUSY = 5;

export class RebuildLock {
  private constructor(private readonly db: DatabaseSync) {}

  static take(file: string, what: string): RebuildLock {
    let db: DatabaseSync | undefined;
    try {
      db = openSqliteDatabase(file, '', { busyTimeoutMs: 0 });
      db.exec('BEGIN IMMEDIATE');
      return new RebuildLock(db);
    } catch (error) {
      db?.close();
      if ((error as { errcode?: number }).errcode === SQLITE_BUSY) throw new RebuildInProgressError(`a rebuild of ${what} is already running`);
      throw error;
    }
  }

  release(): void {
    if (this.db.isTransaction) this.db.exec('ROLLBACK');
    this.db.close();
  }
}
