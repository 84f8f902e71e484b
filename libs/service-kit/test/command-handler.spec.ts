import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventStore, WrongExpectedRevisionError } from '@switchboard/eventstore';
import type { EventStore } from '@switchboard/eventstore';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AggregateCache } from '../src/aggregate-cache.js';
import { CommandQueue, executeCommand, loadAggregate } from '../src/command-handler.js';

interface Counted { type: 'Counted'; version: 1; data: { n: number } }
const fold = {
  initial: 0,
  evolve: (state: number, event: Counted) => state + event.data.n,
  parse: (raw: { type: string; version: number; data: unknown }) => raw as Counted,
};
const metadata = { accountId: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', correlationId: 'c', causationId: 'c', occurredAt: '2026-11-21T00:00:00.000Z' };

let dir: string;
let store: EventStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-kit-'));
  store = openEventStore({ sqlitePath: join(dir, 'events.sqlite') });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('executeCommand', () => {
  it('reports the store position of what it appended, so a handler can wait for its read model', async () => {
    await store.append('other-1', [{ type: 'Counted', data: { n: 1 } }], { expectedRevision: 'any' });
    const result = await executeCommand(store, 'count-1', fold, () => [{ type: 'Counted', version: 1, data: { n: 2 } }], metadata);
    const [recorded] = await store.readStream('count-1');
    expect(result.state).toBe(2);
    expect(result.position).toBe(recorded?.position);
    expect(result.position).toBeGreaterThan(1n);
  });

  it('reports no position when the command changed nothing', async () => {
    const result = await executeCommand(store, 'count-2', fold, () => [], metadata);
    expect(result).toEqual({ state: 0, events: [] });
  });
});

describe('executeCommand on a stream expected to be new (fresh)', () => {
  const count = (n: number) => (state: number): Counted[] => (state === 0 ? [{ type: 'Counted', version: 1, data: { n } }] : []);

  it('appends without reading the stream', async () => {
    const reads = vi.spyOn(store, 'readStream');
    const result = await executeCommand(store, 'fresh-1', fold, count(5), metadata, { fresh: true });
    expect(reads).not.toHaveBeenCalled();
    expect(result).toMatchObject({ state: 5, revision: 0n });
  });

  it('a stream that exists after all is read and decided on as stored: nothing is appended twice', async () => {
    await store.append('fresh-2', [{ type: 'Counted', data: { n: 7 } }], { expectedRevision: 'no_stream' });
    const seen: number[] = [];
    const result = await executeCommand(store, 'fresh-2', fold, (state) => (seen.push(state), count(5)(state)), metadata, { fresh: true });
    expect(seen).toEqual([0, 7]);
    expect(result).toEqual({ state: 7, events: [] });
    expect((await store.readStream('fresh-2')).map((e) => e.data)).toEqual([{ n: 7 }]);
  });

  it('a command that decides nothing on the assumed empty stream is decided again on the stored one', async () => {
    await store.append('fresh-3', [{ type: 'Counted', data: { n: 2 } }], { expectedRevision: 'no_stream' });
    const result = await executeCommand(store, 'fresh-3', fold, (state) => (state === 0 ? [] : [{ type: 'Counted', version: 1, data: { n: 1 } }]), metadata, { fresh: true });
    expect(result).toMatchObject({ state: 3, revision: 1n });
  });
});

describe('executeCommand with an aggregate cache', () => {
  const count = (n: number) => (): Counted[] => [{ type: 'Counted', version: 1, data: { n } }];

  it('appends a second command without reading the stream again', async () => {
    const cache = new AggregateCache<number>(10);
    await executeCommand(store, 'count-3', fold, count(1), metadata, { cache });
    const reads = vi.spyOn(store, 'readStream');
    const result = await executeCommand(store, 'count-3', fold, count(2), metadata, { cache });
    expect(reads).not.toHaveBeenCalled();
    expect(result.state).toBe(3);
    expect((await store.readStream('count-3')).map((e) => e.revision)).toEqual([0n, 1n]);
  });

  it('decides again on the stored stream when another writer appended since the cached fold', async () => {
    const cache = new AggregateCache<number>(10);
    await executeCommand(store, 'count-4', fold, count(1), metadata, { cache });
    await store.append('count-4', [{ type: 'Counted', data: { n: 10 } }], { expectedRevision: 0n });
    const seen: number[] = [];
    const result = await executeCommand(store, 'count-4', fold, (state) => (seen.push(state), count(2)()), metadata, { cache });
    expect(seen).toEqual([1, 11]);
    expect(result.state).toBe(13);
    expect(await loadAggregate(store, 'count-4', fold)).toMatchObject({ state: 13, revision: 2n });
  });

  it('answers "nothing to do" or a refusal only from the stream as stored, never from the cache alone', async () => {
    const cache = new AggregateCache<number>(10);
    await executeCommand(store, 'count-5', fold, count(1), metadata, { cache });
    await store.append('count-5', [{ type: 'Counted', data: { n: 4 } }], { expectedRevision: 0n });
    // Only the fresh state (5) calls for an event; the cached one (1) would have said nothing.
    const result = await executeCommand(store, 'count-5', fold, (state) => (state >= 5 ? count(1)() : []), metadata, { cache });
    expect(result.state).toBe(6);
    const refused = executeCommand(store, 'count-5', fold, (state) => {
      if (state !== 6) throw new Error(`decided on ${state}`);
      return [];
    }, metadata, { cache });
    await expect(refused).resolves.toEqual({ state: 6, events: [] });
  });

  it('loads from the cache plus whatever was appended after it', async () => {
    const cache = new AggregateCache<number>(10);
    await executeCommand(store, 'count-6', fold, count(2), metadata, { cache });
    await store.append('count-6', [{ type: 'Counted', data: { n: 3 } }], { expectedRevision: 0n });
    expect(await loadAggregate(store, 'count-6', fold, cache)).toMatchObject({ state: 5, revision: 1n });
    expect(cache.get('count-6')).toMatchObject({ state: 5, revision: 1n });
  });

  it('answers "nothing to do" from the cache without a read while the store\'s write mark shows nothing appended since', async () => {
    const cache = new AggregateCache<number>(10);
    await executeCommand(store, 'count-7', fold, count(2), metadata, { cache });
    // The first no-op after an append reads the stream (an append leaves no mark) and marks it.
    await executeCommand(store, 'count-7', fold, () => [], metadata, { cache });
    const reads = vi.spyOn(store, 'readStream');
    const seen: number[] = [];
    const result = await executeCommand(store, 'count-7', fold, (state) => (seen.push(state), []), metadata, { cache });
    expect(result).toEqual({ state: 2, events: [] });
    expect(await loadAggregate(store, 'count-7', fold, cache)).toMatchObject({ state: 2, revision: 0n });
    expect(seen).toEqual([2]);
    expect(reads).not.toHaveBeenCalled();
  });

  it('reads again, and answers from what is stored, once another connection appended to the category (even to another stream)', async () => {
    const cache = new AggregateCache<number>(10);
    await executeCommand(store, 'count-8', fold, count(2), metadata, { cache });
    await executeCommand(store, 'count-8', fold, () => [], metadata, { cache });
    const other = openEventStore({ sqlitePath: join(dir, 'events.sqlite') });
    await other.append('count-8', [{ type: 'Counted', data: { n: 5 } }], { expectedRevision: 0n });
    await other.close();
    const reads = vi.spyOn(store, 'readStream');
    const seen: number[] = [];
    const result = await executeCommand(store, 'count-8', fold, (state) => (seen.push(state), []), metadata, { cache });
    expect(seen).toEqual([2, 7]);
    expect(result).toEqual({ state: 7, events: [] });
    expect(reads).toHaveBeenCalledTimes(1);
    // An append to another stream of the category also makes the mark stale: it is read again (and is current).
    await store.append('count-9', [{ type: 'Counted', data: { n: 1 } }], { expectedRevision: 'no_stream' });
    expect(await loadAggregate(store, 'count-8', fold, cache)).toMatchObject({ state: 7, revision: 1n });
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('keeps at most its bound of streams, dropping the least recently used', () => {
    const cache = new AggregateCache<number>(2);
    cache.set('a', { state: 1, revision: 0n });
    cache.set('b', { state: 2, revision: 0n });
    cache.get('a');
    cache.set('c', { state: 3, revision: 0n });
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([{ state: 1, revision: 0n }, undefined, { state: 3, revision: 0n }]);
  });
});

describe('CommandQueue with conditions on other streams', () => {
  const add = (n: number) => (): Counted[] => [{ type: 'Counted', version: 1, data: { n } }];

  it('appends while the streams it names stand where they were read; one that moved fails the command at once, naming it', async () => {
    const queue = new CommandQueue(store, fold, { cache: new AggregateCache<number>(10) });
    await store.append('plan-1', [{ type: 'Counted', data: { n: 1 } }], { expectedRevision: 'no_stream' });
    await queue.execute('count-1', add(1), (state) => state, () => metadata, [{ stream: 'plan-1', revision: 0n }]);
    await store.append('plan-1', [{ type: 'Counted', data: { n: 1 } }], { expectedRevision: 0n });
    const appends = vi.spyOn(store, 'append');
    const refused = await queue.execute('count-1', add(2), (state) => state, () => metadata, [{ stream: 'plan-1', revision: 0n }]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WrongExpectedRevisionError);
    expect(refused).toMatchObject({ stream: 'plan-1', actual: 1n });
    // Not retried on the command's own stream, which did not move.
    expect(appends).toHaveBeenCalledTimes(1);
    expect((await queue.execute('count-1', add(2), (state) => state, () => metadata, [{ stream: 'plan-1', revision: 1n }])).view).toBe(3);
  });

  it("tells each command's view the stream revision its state is at once the batch is appended", async () => {
    const queue = new CommandQueue(store, fold, { cache: new AggregateCache<number>(10) });
    const at = (state: number, revision: unknown) => ({ state, revision });
    expect((await queue.execute('count-3', () => [], at, () => metadata)).view).toEqual({ state: 0, revision: 'no_stream' });
    const views = await Promise.all([
      queue.execute('count-3', add(1), at, () => metadata),
      queue.execute('count-3', () => [], at, () => metadata),
      queue.execute('count-3', () => [...add(2)(), ...add(3)()], at, () => metadata),
    ]);
    expect(views.map((result) => result.view)).toEqual([{ state: 1, revision: 0n }, { state: 1, revision: 0n }, { state: 6, revision: 2n }]);
  });

  it('appends commands queued together in one append per set of conditions: a moved stream fails only the commands that name it', async () => {
    const queue = new CommandQueue(store, fold, { cache: new AggregateCache<number>(10) });
    await store.append('plan-2', [{ type: 'Counted', data: { n: 1 } }, { type: 'Counted', data: { n: 1 } }], { expectedRevision: 'no_stream' });
    await queue.execute('count-2', add(1), (state) => state, () => metadata);
    const appends = vi.spyOn(store, 'append');
    const held = [{ stream: 'plan-2', revision: 1n }];
    const stale = [{ stream: 'plan-2', revision: 0n }];
    const outcomes = await Promise.allSettled([held, held, held, stale, held].map((unchanged, i) =>
      queue.execute('count-2', add(10 ** i), (state) => state, () => metadata, unchanged)));
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    // The first alone (the queue was idle), the next two together, the stale one alone, the last.
    expect(appends).toHaveBeenCalledTimes(4);
    expect((await store.readStream('count-2')).map((event) => (event.data as { n: number }).n)).toEqual([1, 1, 10, 100, 10_000]);
  });
});
