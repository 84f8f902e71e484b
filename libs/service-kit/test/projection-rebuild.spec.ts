import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InProcessBus } from '@switchboard/bus';
import { ProjectionRebuildReport, projectionRebuildReportSubject, projectionRebuildSubject } from '@switchboard/contracts';
import { CATCH_UP_PAGE_SIZE, SqliteEventStore, openSqliteDatabase } from '@switchboard/eventstore';
import type { RecordedEvent } from '@switchboard/eventstore';
import { createLogger } from '@switchboard/telemetry';
import { ProjectionRunner } from '../src/projection-runner.js';
import type { Projection } from '../src/projection-runner.js';
import { rebuildProjection } from '../src/rebuild/projection-rebuild.js';
import type { RebuildableProjection, ServiceReadModels } from '../src/rebuild/projection-rebuild.js';
import { serveProjectionRebuilds } from '../src/rebuild/rebuild-requests.js';
import { tempDir } from './support.js';

/**
 * Grants counted per stream, with an index: applying an event twice, or missing one, shows as a
 * wrong count. Called `session-list` here only because rebuildable read models are named in the
 * contracts; what it keeps is this test's own.
 */
function grantCounter(db: DatabaseSync): Projection {
  db.exec(`CREATE TABLE IF NOT EXISTS grants (stream TEXT PRIMARY KEY, count INTEGER NOT NULL, last TEXT NOT NULL);
    CREATE INDEX IF NOT EXISTS grants_by_last ON grants (last)`);
  const upsert = db.prepare('INSERT INTO grants (stream, count, last) VALUES (?, 1, ?) ON CONFLICT(stream) DO UPDATE SET count = count + 1, last = excluded.last');
  return { name: 'grants-v1', category: 'ticket', apply: (event: RecordedEvent) => void upsert.run(event.stream, event.id) };
}
const counter: RebuildableProjection = { name: 'session-list', open: grantCounter };

const grant = { type: 'TicketGranted', data: { holder: 'x' } };
const counts = (db: DatabaseSync) => Object.fromEntries((db.prepare('SELECT stream, count FROM grants').all() as { stream: string; count: number }[]).map((r) => [r.stream, r.count]));

/** What the read model must say: the number of events each ticket stream holds. */
async function expectedCounts(store: SqliteEventStore): Promise<Record<string, number>> {
  const expected: Record<string, number> = {};
  for (const event of await store.readAll({ category: 'ticket' })) expected[event.stream] = (expected[event.stream] ?? 0) + 1;
  return expected;
}

describe('rebuildProjection', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  let liveFile: string;
  let live: DatabaseSync;
  let runner: ProjectionRunner;
  const revisions = new Map<string, bigint>();

  async function append(stream: string, count: number): Promise<bigint> {
    const previous = revisions.get(stream);
    const result = await store.append(stream, Array.from({ length: count }, () => grant), { expectedRevision: previous ?? 'no_stream' });
    revisions.set(stream, result.nextRevision);
    return result.position;
  }

  beforeEach(async () => {
    dir = tempDir();
    revisions.clear();
    store = new SqliteEventStore(join(dir.path, 'events.sqlite'));
    for (let i = 0; i < 100; i += 1) await append(`ticket-${i}`, 100);
    await append('other-1', 5);
    liveFile = join(dir.path, 'read-models.sqlite');
    live = openSqliteDatabase(liveFile, '');
    runner = new ProjectionRunner(store, live, grantCounter(live));
    await runner.start();
    await runner.waitForPosition((await store.lastPosition({ category: 'ticket' }))!);
  });
  afterEach(async () => {
    await runner.stop();
    live.close();
    await store.close();
    dir.remove();
  });

  it('builds a new generation while the live one answers and is written to, swaps it in, and no event is lost or applied twice', async () => {
    // The old generation is wrong (as after a projection bug): the rebuild must replace it.
    live.exec("UPDATE grants SET count = 999 WHERE stream = 'ticket-7'");
    const progress: number[] = [];
    // As a serving replica runs it (one page per transaction, requests answered between two).
    const rebuilding = rebuildProjection({ store, file: liveFile, projection: counter, onProgress: (p) => progress.push(p.events), servingRequests: true });
    let done = false;
    void rebuilding.finally(() => (done = true));
    let reads = 0;
    let appended = 0;
    // Reads and appends go on throughout: each read answers, from the old rows or the new ones.
    while (!done) {
      expect(Object.keys(counts(live)).length).toBeGreaterThanOrEqual(100);
      reads += 1;
      await append(`ticket-${appended % 120}`, 3);
      appended += 1;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    const result = await rebuilding;
    const last = await append('ticket-0', 1);
    await runner.waitForPosition(last);

    expect(counts(live)).toEqual(await expectedCounts(store));
    expect(reads).toBeGreaterThan(1);
    expect(appended).toBeGreaterThan(1);
    expect(result).toMatchObject({ projection: 'session-list', rows: { grants: expect.any(Number) as number } });
    expect(result.events).toBeGreaterThanOrEqual(10_000);
    expect(result.eventsPerSecond).toBeGreaterThan(0);
    expect(BigInt(result.position!)).toBeLessThanOrEqual(last);
    expect(progress.at(-1)).toBe(result.events);
    expect(steps(progress).every((step) => step <= CATCH_UP_PAGE_SIZE)).toBe(true);
    // The indexes came with the new generation; nothing of it is left beside the live file but the lock.
    expect(live.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'grants' AND sql IS NOT NULL").all()).toEqual([{ name: 'grants_by_last' }]);
    expect(readdirSync(dir.path).filter((f) => f.startsWith('rebuild-'))).toEqual(['rebuild-session-list.sqlite.lock']);
  });

  it('leaves the live read model untouched when aborted, and refuses a second rebuild of the same read model meanwhile', async () => {
    live.exec("UPDATE grants SET count = 999 WHERE stream = 'ticket-7'");
    const abort = new AbortController();
    const first = rebuildProjection({ store, file: liveFile, projection: counter, signal: abort.signal });
    await expect(rebuildProjection({ store, file: liveFile, projection: counter })).rejects.toThrow('a rebuild of session-list is already running');
    abort.abort(new Error('stopped by the test'));
    await expect(first).rejects.toThrow('stopped by the test');
    expect(counts(live)['ticket-7']).toBe(999);
    expect(existsSync(join(dir.path, 'rebuild-session-list.sqlite'))).toBe(false);
    // Once the first has gone, the next one may run.
    await rebuildProjection({ store, file: liveFile, projection: counter });
    expect(counts(live)['ticket-7']).toBe(100);
  });

  it('rebuilds into a file with no read model yet, in batches of several pages where no request is served, and an empty category into empty tables', async () => {
    const fresh = join(dir.path, 'fresh', 'read-models.sqlite');
    const progress: number[] = [];
    const result = await rebuildProjection({ store, file: fresh, projection: counter, onProgress: (p) => progress.push(p.events) });
    expect(result.rows).toEqual({ grants: 100 });
    expect(steps(progress)[0]).toBeGreaterThan(CATCH_UP_PAGE_SIZE);
    const empty = await rebuildProjection({ store, file: fresh, projection: { name: 'session-list', open: (db) => ({ ...grantCounter(db), category: 'none' }) } });
    expect(empty).toMatchObject({ events: 0, position: null, rows: { grants: 0 } });
  });
});

/** Events applied between two progress reports: one batch each (the final report repeats the last count). */
const steps = (progress: readonly number[]): number[] => progress.map((n, i) => n - (progress[i - 1] ?? 0)).filter((step) => step > 0);

describe('serveProjectionRebuilds', () => {
  it('rebuilds on a request published over the bus and reports started, rebuilt and finished on the run subject', async () => {
    const dir = tempDir();
    const store = new SqliteEventStore(join(dir.path, 'events.sqlite'));
    const bus = new InProcessBus();
    try {
      await store.append('ticket-a', [grant, grant], { expectedRevision: 'no_stream' });
      const readModels: ServiceReadModels = { service: 'sessions', file: (config) => join(config.dataDir, 'read-models.sqlite'), projections: [counter] };
      const served = await serveProjectionRebuilds({ bus, readModels, store, config: { dataDir: dir.path }, logger: createLogger({ service: 'test', level: 'silent' }) });
      const reports: ProjectionRebuildReport[] = [];
      await bus.subscribe(projectionRebuildReportSubject('run0000000001'), (message) => void reports.push(ProjectionRebuildReport.parse(message.data)));
      await bus.publish(projectionRebuildSubject('sessions'), { runId: 'run0000000001' });
      await expect.poll(() => reports.at(-1)?.phase).toBe('finished');
      expect(reports.map((r) => r.phase).filter((phase) => phase !== 'progress')).toEqual(['started', 'rebuilt', 'finished']);
      expect(reports[0]).toMatchObject({ service: 'sessions', projections: ['session-list'] });
      expect(reports.find((r) => r.phase === 'rebuilt')).toMatchObject({ result: { projection: 'session-list', events: 2, rows: { grants: 1 } } });
      await served.close();
    } finally {
      await bus.close();
      await store.close();
      dir.remove();
    }
  });
});
