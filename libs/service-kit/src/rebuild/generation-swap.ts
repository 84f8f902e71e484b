import type { DatabaseSync } from 'node:sqlite';
import type { EventStore } from '@switchboard/eventstore';
import { SqliteCheckpointStore, openSqliteDatabase } from '@switchboard/eventstore';
import type { ProjectionRunner } from '../projection-runner.js';

/** The new generation of a read model: its file, the runner still building it, and what it follows. */
export interface NextGeneration {
  file: string;
  runner: ProjectionRunner;
  /** The projection's checkpoint name (the same in both generations). */
  checkpoint: string;
  category: string;
  /** The secondary indexes its tables get once swapped in (see `withoutSecondaryIndexes`). */
  indexes: readonly IndexDefinition[];
}

/** A `CREATE INDEX` as SQLite stores it, and the table it is on. */
export interface IndexDefinition {
  table: string;
  sql: string;
}

export interface SwapOutcome {
  /** The store position both generations stood at when swapped; undefined for an empty category. */
  position: bigint | undefined;
  /** Rows of each table swapped in. */
  rows: Record<string, number>;
  /** How long the live file's write lock was held. */
  lockedMs: number;
}

/**
 * Swaps the new generation in for the live read model, in one transaction on the live file that
 * holds its write lock only while it copies, never across an await (in the service's own process a
 * writer waiting for the lock would otherwise stop the very loop that must release it):
 * - the live runner (in the service, in this process or another) waits for the lock without
 *   blocking its process, and readers keep reading the old rows (WAL);
 * - if the live checkpoint is ahead of the new generation (events the live runner applied since the
 *   new one last caught up), the lock is let go until the new one, still running, has caught up;
 * - otherwise each of the projection's tables (the new generation's schema, rows and indexes, read
 *   from one snapshot of it) replaces the live one, with the checkpoint, and readers see the whole
 *   new read model from their next query on.
 * A running service needs no signal: SQLite re-prepares its statements on the changed schema, and
 * its runner, finding the checkpoint ahead of itself, skips the events the new generation applied.
 */
export async function swapGeneration(store: EventStore, liveFile: string, next: NextGeneration): Promise<SwapOutcome> {
  const live = openSqliteDatabase(liveFile, '');
  const liveCheckpoints = SqliteCheckpointStore.fromDatabase(live);
  try {
    live.prepare('ATTACH DATABASE ? AS next').run(next.file);
    try {
      for (let evenIfBehind = false; ;) {
        const attempt = trySwap(live, liveCheckpoints, next, evenIfBehind);
        if ('swapped' in attempt) return attempt.swapped;
        const head = await store.lastPosition({ category: next.category });
        // A live checkpoint past the store's head names events this store does not hold: swap regardless.
        if (head === undefined || attempt.behind > head) evenIfBehind = true;
        else await next.runner.waitForPosition(attempt.behind);
      }
    } finally {
      live.exec('DETACH DATABASE next');
    }
  } finally {
    live.close();
  }
}

/** One synchronous attempt: swapped, or the live checkpoint the new generation must reach first. */
function trySwap(live: DatabaseSync, liveCheckpoints: SqliteCheckpointStore, next: NextGeneration, evenIfBehind: boolean): { swapped: SwapOutcome } | { behind: bigint } {
  const { checkpoint } = next;
  // The write lock up front: the live checkpoint read below stays the live runner's last word.
  live.exec('BEGIN IMMEDIATE');
  const locked = performance.now();
  try {
    const liveAt = liveCheckpoints.loadSync(checkpoint);
    // The first read of the new generation: everything below reads this one snapshot of it.
    const nextAt = checkpointOfNext(live, checkpoint);
    if (!evenIfBehind && liveAt !== 'start' && (nextAt === undefined || nextAt < liveAt)) {
      live.exec('ROLLBACK');
      return { behind: liveAt };
    }
    const rows = copyTables(live, next.indexes);
    if (nextAt === undefined) live.prepare('DELETE FROM main.checkpoints WHERE name = ?').run(checkpoint);
    else liveCheckpoints.saveSync(checkpoint, nextAt);
    live.exec('COMMIT');
    return { swapped: { position: nextAt, rows, lockedMs: performance.now() - locked } };
  } catch (error) {
    if (live.isTransaction) live.exec('ROLLBACK');
    throw error;
  }
}

/** The new generation's checkpoint; none when it applied nothing (an empty category). */
function checkpointOfNext(live: DatabaseSync, name: string): bigint | undefined {
  const read = live.prepare('SELECT position FROM next.checkpoints WHERE name = ?');
  read.setReadBigInts(true);
  return (read.get(name) as { position: bigint } | undefined)?.position;
}

/**
 * Drops the secondary indexes `open` created on the new generation's tables and answers their
 * definitions: the projections look rows up by primary key while applying (a rare fact that
 * updates by another column, such as an account's erasure, scans the table once), so building the
 * generation without them saves maintaining every index on every write; the swap builds each once,
 * sorted, over the finished rows.
 */
export function withoutSecondaryIndexes(db: DatabaseSync): IndexDefinition[] {
  const indexes = db.prepare(`SELECT name, tbl_name AS "table", sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY rowid`)
    .all() as { name: string; table: string; sql: string }[];
  for (const { name } of indexes) db.exec(`DROP INDEX ${quoted(name)}`);
  return indexes.map(({ table, sql }) => ({ table, sql }));
}

/** The new generation's tables in place of the live ones: schema, rows, then indexes (each built once, sorted). */
function copyTables(live: DatabaseSync, indexes: readonly IndexDefinition[]): Record<string, number> {
  const tables = live.prepare(`SELECT name, sql FROM next.sqlite_master WHERE type = 'table' AND name <> 'checkpoints' AND name NOT LIKE 'sqlite_%' ORDER BY rowid`)
    .all() as { name: string; sql: string }[];
  const rows: Record<string, number> = {};
  for (const { name, sql } of tables) {
    live.exec(`DROP TABLE IF EXISTS main.${quoted(name)}`);
    // The stored DDL names no schema: it creates the table (and below, its indexes) in main.
    live.exec(sql);
    rows[name] = Number(live.prepare(`INSERT INTO main.${quoted(name)} SELECT * FROM next.${quoted(name)}`).run().changes);
    for (const index of indexes.filter((i) => i.table === name)) live.exec(index.sql);
  }
  return rows;
}

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;
