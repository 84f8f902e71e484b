import type { ExpectedRevision, WriteMark } from '@switchboard/eventstore';

/** A stream's folded state and the revision of the last event folded into it. */
export interface CachedAggregate<S> {
  state: S;
  revision: bigint;
  /** Taken before the read this state was folded from: while unchanged, the state is the stream's. */
  mark?: WriteMark | undefined;
}

/**
 * Folded aggregates by stream name, bounded (least recently used out), so a handler need not
 * re-read and re-fold a stream it just wrote. The revision keeps it honest: `executeCommand`
 * appends with it as the expected revision (another writer's events make that append fail, and
 * the stream is read afresh), and `loadAggregate` reads only what came after it (nothing at all
 * while the store's write mark vouches for the cached state). States must be
 * immutable (`evolve` returns a new state), as the handler loop already requires.
 */
export class AggregateCache<S> {
  readonly #entries = new Map<string, CachedAggregate<S>>();

  constructor(private readonly maxEntries: number) {}

  get(stream: string): CachedAggregate<S> | undefined {
    const entry = this.#entries.get(stream);
    if (entry === undefined) return undefined;
    // Re-inserted: the Map's order is the recency order.
    this.#entries.delete(stream);
    this.#entries.set(stream, entry);
    return entry;
  }

  set(stream: string, entry: { state: S; revision: ExpectedRevision; mark?: WriteMark | undefined }): void {
    this.#entries.delete(stream);
    // A stream with no events has nothing worth keeping (and a miss costs the same read).
    if (typeof entry.revision !== 'bigint') return;
    this.#entries.set(stream, { state: entry.state, revision: entry.revision, mark: entry.mark });
    if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  delete(stream: string): void {
    this.#entries.delete(stream);
  }

  get size(): number {
    return this.#entries.size;
  }
}
