import type { EventMetadata, RawEvent } from '@switchboard/contracts';
import { WrongExpectedRevisionError } from '@switchboard/eventstore';
import type { EventStore, ExpectedRevision, NewEvent } from '@switchboard/eventstore';
import { toNewEvent, toRawEvent } from '@switchboard/service-kit';
import type { DomainEvent } from '@switchboard/service-kit';

/** How one aggregate type folds (service-kit's AggregateFold). */
export interface Fold<S, E extends DomainEvent> {
  initial: S;
  evolve(state: S, event: E): S;
  parse(raw: RawEvent): E;
}

export interface Executed<R, E> {
  /** What `view` read from the state right after this command's events. */
  view: R;
  events: E[];
  /** Store position of the append that carried the events; null when the command changed nothing. */
  position: bigint | null;
}

/** One command waiting for its stream: decide on the state, then read the reply off it. */
interface Pending<S, E> {
  decide(state: S): E[];
  view(state: S): unknown;
  metadata: () => EventMetadata;
  settle(result: { ok: true; value: Executed<unknown, E> } | { ok: false; error: unknown }): void;
}

interface Cached<S> {
  state: S;
  revision: ExpectedRevision;
}

const maxCachedStreams = 10_000;
const maxAttempts = 50;
const maxBatch = 256;

/**
 * The STYLE.md handler loop (read, fold, decide, append with the expected revision, retry on a
 * conflict), plus what service-kit's `executeCommand` lacks: the append position (to wait for
 * the read model), a per-stream cache that reads only the events appended since, and group
 * commit: commands queued on one stream are decided one after the other on the evolving state
 * and appended together, with one expected revision. Across processes the expected revision
 * decides (a conflict re-decides the whole batch), so no replica ever holds a lock.
 */
export class AggregateStore<S, E extends DomainEvent> {
  private readonly cache = new Map<string, Cached<S>>();
  private readonly queues = new Map<string, Pending<S, E>[]>();

  constructor(private readonly store: EventStore, private readonly fold: Fold<S, E>) {}

  /** `view` must copy what it needs out of the state (the state keeps evolving after it). */
  execute<R>(stream: string, decide: (state: S) => E[], view: (state: S) => R, metadata: () => EventMetadata): Promise<Executed<R, E>> {
    return new Promise((resolve, reject) => {
      const settle: Pending<S, E>['settle'] = (r) => (r.ok ? resolve(r.value as Executed<R, E>) : reject(r.error));
      const queue = this.queues.get(stream);
      const pending = { decide, view, metadata, settle };
      if (queue) return void queue.push(pending);
      this.queues.set(stream, [pending]);
      void this.drain(stream);
    });
  }

  /** Runs batches for a stream until its queue is empty; only one drain per stream at a time. */
  private async drain(stream: string): Promise<void> {
    for (;;) {
      const queue = this.queues.get(stream) ?? [];
      const batch = queue.splice(0, maxBatch);
      if (batch.length === 0) return void this.queues.delete(stream);
      try {
        await this.runBatch(stream, batch);
      } catch (error) {
        for (const pending of batch) pending.settle({ ok: false, error });
      }
    }
  }

  private async runBatch(stream: string, batch: Pending<S, E>[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const current = await this.catchUp(stream);
      const outcomes = this.decideAll(batch, current.state);
      const toAppend: NewEvent[] = outcomes.flatMap((o) => (o.ok && o.metadata ? o.events.map((e) => toNewEvent(e, o.metadata!)) : []));
      let position: bigint | null = null;
      if (toAppend.length > 0) {
        try {
          const result = await this.store.append(stream, toAppend, { expectedRevision: current.revision });
          position = result.position;
          this.remember(stream, { state: outcomes.state, revision: result.nextRevision });
        } catch (error) {
          // The cached state was evolved with events that are not stored: fold afresh next time.
          this.cache.delete(stream);
          if (error instanceof WrongExpectedRevisionError && attempt < maxAttempts) continue;
          throw error;
        }
      }
      batch.forEach((pending, i) => {
        const o = outcomes[i]!;
        pending.settle(o.ok ? { ok: true, value: { view: o.view, events: o.events, position: o.events.length > 0 ? position : null } } : o);
      });
      return;
    }
  }

  /**
   * Decides each command on the state its predecessors in the batch left, so limits count them.
   * `view` runs right after each command (the state's maps keep changing after it).
   */
  private decideAll(batch: Pending<S, E>[], start: S) {
    let state = start;
    const outcomes = batch.map((pending) => {
      try {
        const events = pending.decide(state);
        state = events.reduce((s, e) => this.fold.evolve(s, e), state);
        return { ok: true as const, events, view: pending.view(state), metadata: events.length > 0 ? pending.metadata() : undefined };
      } catch (error) {
        return { ok: false as const, error };
      }
    });
    return Object.assign(outcomes, { state });
  }

  /** Folds what was appended since the cached revision (everything, the first time). */
  private async catchUp(stream: string): Promise<Cached<S>> {
    const cached = this.cache.get(stream) ?? { state: this.fold.initial, revision: 'no_stream' as ExpectedRevision };
    const fromRevision = typeof cached.revision === 'bigint' ? cached.revision + 1n : 0n;
    const recorded = await this.store.readStream(stream, { fromRevision });
    if (recorded.length === 0) return cached;
    const state = recorded.reduce((s, r) => this.fold.evolve(s, this.fold.parse(toRawEvent(r))), cached.state);
    const next = { state, revision: recorded.at(-1)!.revision };
    this.remember(stream, next);
    return next;
  }

  private remember(stream: string, entry: Cached<S>): void {
    this.cache.delete(stream);
    this.cache.set(stream, entry);
    if (this.cache.size > maxCachedStreams) this.cache.delete(this.cache.keys().next().value!);
  }
}
