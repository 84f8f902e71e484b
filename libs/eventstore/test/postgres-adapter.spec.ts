import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENESIS_HASH, PostgresEventStore, WrongExpectedRevisionError, eventHash, isEventStoreServerUrl, openEventStore } from '../src/index.js';
import { decideAppends } from '../src/postgres/postgres-appends.js';

// These run without a server; the behaviour against a real PostgreSQL is in the other postgres specs.
describe('openEventStore with a PostgreSQL URL', () => {
  it('accepts postgres:// and postgresql:// as server URLs', () => {
    expect(['postgres://sb@db:5432/switchboard', 'postgresql://db/switchboard', ' POSTGRES://db ']
      .every(isEventStoreServerUrl)).toBe(true);
    expect(isEventStoreServerUrl('mysql://db')).toBe(false);
  });

  it('selects the PostgreSQL adapter, which fails fast (not hangs) when the server is down', async () => {
    const store = openEventStore({ url: 'postgres://postgres@127.0.0.1:1/none', schema: 'sessions', sqlitePath: '/never/used.sqlite' });
    expect(store).toBeInstanceOf(PostgresEventStore);
    const append = store.append('session-ses_1', [{ type: 'SessionCreated', data: {} }], { expectedRevision: 'no_stream' });
    await expect(append).rejects.toThrow(/ECONNREFUSED/);
    await expect(append).rejects.not.toBeInstanceOf(WrongExpectedRevisionError);
    await expect(store.readAll()).rejects.toThrow(/ECONNREFUSED/);
    await store.close();
  });

  it('loads pg only in a process that opens a PostgreSQL store', () => {
    expect(pgModulesLoadedAfter("openEventStore({ sqlitePath: ':memory:' })")).toEqual([]);
    // The check can see pg: a process that does open a PostgreSQL store has it loaded.
    expect(pgModulesLoadedAfter("openEventStore({ url: 'postgres://127.0.0.1:1/none' })").length).toBeGreaterThan(0);
  });
});

describe('a batch of PostgreSQL appends, decided in order', () => {
  const one = [{ type: 'Reserved', data: {} }];

  it('lets an earlier append of the batch move the revision a later one expects', () => {
    const { decisions, rows } = decideAppends([
      { stream: 'usage-a', events: one, expectedRevision: 'no_stream' },
      { stream: 'usage-a', events: one, expectedRevision: 'no_stream' },
      { stream: 'usage-a', events: [...one, ...one], expectedRevision: 0n },
      { stream: 'usage-b', events: one, expectedRevision: 4n },
    ], new Map([['usage-b', { revision: 4n, hash: 'f'.repeat(64) }]]));

    expect(decisions).toEqual([
      { ok: true, nextRevision: 0n, lastRow: 0 },
      { ok: false, error: new WrongExpectedRevisionError('usage-a', 'no_stream', 0n) },
      { ok: true, nextRevision: 2n, lastRow: 2 },
      { ok: true, nextRevision: 5n, lastRow: 3 },
    ]);
    expect(rows.streams).toEqual(['usage-a', 'usage-a', 'usage-a', 'usage-b']);
    expect(rows.revisions).toEqual([0n, 1n, 2n, 5n]);
    expect(rows.categories).toEqual(['usage', 'usage', 'usage', 'usage']);
  });

  it('chains each accepted event on the one before it in its stream, across the appends of the batch', () => {
    const { rows } = decideAppends([
      { stream: 'usage-a', events: one, expectedRevision: 'no_stream' },
      { stream: 'usage-b', events: one, expectedRevision: 4n },
      { stream: 'usage-a', events: [...one, ...one], expectedRevision: 0n },
    ], new Map([['usage-b', { revision: 4n, hash: 'f'.repeat(64) }]]));

    const links = rows.metadata.map((text) => JSON.parse(text) as { prevHash: string; hash: string });
    expect(links.map((l) => l.prevHash)).toEqual([GENESIS_HASH, 'f'.repeat(64), links[0]!.hash, links[2]!.hash]);
    expect(links[0]!.hash).toBe(eventHash(GENESIS_HASH, { type: 'Reserved', data: {}, metadata: {} }));
    expect(new Set(links.map((l) => l.hash)).size).toBe(4);
  });

  it('writes no row for a refused append', () => {
    const { decisions, rows } = decideAppends([{ stream: 'usage-a', events: one, expectedRevision: 'stream_exists' }], new Map());
    expect(decisions).toMatchObject([{ ok: false, error: { expected: 'stream_exists', actual: 'no_stream' } }]);
    expect(rows.count).toBe(0);
  });
});

/** The files of `pg` a fresh process on the built library (as a service runs it) has loaded after `open`. */
function pgModulesLoadedAfter(open: string): string[] {
  const entry = path.resolve(import.meta.dirname, '../dist/src/index.js');
  const script = `
    import { createRequire } from 'node:module';
    const { openEventStore } = await import(${JSON.stringify(entry)});
    const store = ${open};
    await store.close();
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) => /[\\/]node_modules[\\/]pg[\\/]/.test(file));
    console.log(JSON.stringify(loaded));`;
  const output = execFileSync(process.execPath, ['--input-type=module', '--no-warnings', '-e', script], { encoding: 'utf8' });
  return JSON.parse(output.trim().split('\n').at(-1)!) as string[];
}
