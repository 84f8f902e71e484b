import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { ProjectionName, ProjectionRebuildResult, RebuildableService } from '@switchboard/contracts';
import type { EventStore } from '@switchboard/eventstore';
import { CATCH_UP_PAGE_SIZE, openSqliteDatabase } from '@switchboard/eventstore';
import { ProjectionRunner } from '../projection-runner.js';
import type { Projection } from '../projection-runner.js';
import type { StoreConfig } from '../service-store.js';
import { swapGeneration, withoutSecondaryIndexes } from './generation-swap.js';
import { RebuildLock } from './rebuild-lock.js';

/** A read model that `switchboard projections rebuild` can rebuild. */
export interface RebuildableProjection {
  readonly name: ProjectionName;
  /** The projection on `db`, its tables created there: the live read model's file, or a new generation's. */
  open(db: DatabaseSync): Projection;
}

/** A service's rebuildable read models: the file it reads them from, and the projections that keep them. */
export interface ServiceReadModels {
  readonly service: RebuildableService;
  file(config: StoreConfig): string;
  readonly projections: readonly RebuildableProjection[];
}

/** How far a rebuild has come: events applied of the category's `total` (counted at the start). */
export interface RebuildProgress {
  projection: ProjectionName;
  events: number;
  total: number;
  seconds: number;
}

export interface RebuildOptions {
  store: EventStore;
  /** The live read model's SQLite file (created if there is none yet). */
  file: string;
  projection: RebuildableProjection;
  onProgress?: (progress: RebuildProgress) => void;
  /** Aborting stops the rebuild before its swap; the live read model stays as it was. */
  signal?: AbortSignal;
  /**
   * The rebuild runs in a process that goes on answering requests (a distributed replica): a page
   * per transaction, and the event loop let go between two (a SQLite store's pages are read
   * without I/O). A process doing nothing else (the embedded CLI) applies batches of up to
   * CATCH_UP_BATCH_EVENTS back to back: letting the loop go after each, with the batch still
   * referenced, had V8 run a scheduled young GC right then and move the whole batch to the old
   * generation (the CLI's message status rebuild: 71,000-75,000 events/s with, 80,000 without).
   */
  servingRequests?: boolean;
}

/**
 * Rebuilds a read model from zero while its service keeps answering from the live one (blue/green):
 * the new generation is built in a file of its own beside the live one (`rebuild-<name>.sqlite`,
 * so building never takes the live file's write lock), from the first event of its category to the
 * head, then swapped in at once (see `swapGeneration`). One rebuild of a read model at a time.
 */
export async function rebuildProjection(options: RebuildOptions): Promise<ProjectionRebuildResult> {
  const { projection: rebuildable, file } = options;
  const nextFile = join(dirname(file), `rebuild-${rebuildable.name}.sqlite`);
  const lock = RebuildLock.take(`${nextFile}.lock`, rebuildable.name);
  try {
    removeDatabase(nextFile);
    const next = openSqliteDatabase(nextFile, '');
    try {
      // A generation that was not swapped in is thrown away after a crash: no need to sync it, nor to
      // write every page twice (WAL) when no other writer shares it; a larger cache rewrites fewer pages.
      next.exec('PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA cache_size = -65536');
      const started = performance.now();
      const projection = rebuildable.open(next);
      const indexes = withoutSecondaryIndexes(next);
      const { runner, applied } = await buildGeneration(options, next, projection, started);
      const swap = await swapGeneration(options.store, file, { file: nextFile, runner, checkpoint: projection.name, category: projection.category, indexes })
        .finally(() => runner.stop());
      const seconds = (performance.now() - started) / 1000;
      const events = applied();
      return {
        projection: rebuildable.name, events, seconds, eventsPerSecond: seconds > 0 ? events / seconds : 0,
        position: swap.position === undefined ? null : String(swap.position), rows: swap.rows, swapMs: swap.lockedMs,
      };
    } finally {
      next.close();
      removeDatabase(nextFile);
    }
  } finally {
    lock.release();
  }
}

/** Applies the category from its first event up to its head at the start; the runner keeps going (the swap stops it). */
async function buildGeneration(options: RebuildOptions, next: DatabaseSync, projection: Projection, started: number): Promise<{ runner: ProjectionRunner; applied: () => number }> {
  const { store, signal, onProgress } = options;
  const category = projection.category;
  const total = await store.countAfter('start', { category, limit: Number.MAX_SAFE_INTEGER });
  let events = 0;
  const report = () => onProgress?.({ projection: options.projection.name, events, total: Math.max(total, events), seconds: (performance.now() - started) / 1000 });
  const serving = options.servingRequests === true;
  const runner = new ProjectionRunner(store, next, projection, {
    afterApply: async (batch) => {
      events += batch.length;
      report();
      if (serving) await new Promise((resolve) => setImmediate(resolve));
    },
    reportLag: false,
    catchUpBatchEvents: serving ? CATCH_UP_PAGE_SIZE : undefined,
  });
  const head = await store.lastPosition({ category });
  await runner.start();
  try {
    if (head !== undefined) await untilAborted(runner.waitForPosition(head), signal);
  } catch (error) {
    await runner.stop();
    throw error;
  }
  report();
  return { runner, applied: () => events };
}

/** `work`, or the abort's reason as soon as `signal` aborts. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  signal.throwIfAborted();
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

function removeDatabase(file: string): void {
  for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) rmSync(path, { force: true });
}
