import type { EventMetadata, RawEvent } from '@switchboard/contracts';
import { WrongExpectedRevisionError } from '@switchboard/eventstore';
import type { EventStore, ExpectedRevision } from '@switchboard/eventstore';
import type { AggregateCache } from './aggregate-cache.js';
import { toNewEvent, toRawEvent } from './stored-events.js';
import type { DomainEvent } from './stored-events.js';

/** How one aggregate's stream folds into its state. */
export interface AggregateFold<S, E extends DomainEvent> {
  initial: S;
  evolve(state: S, event: E): S;
  /** Validates a stored event (a contracts event parser's `parse`). */
  parse(raw: RawEvent): E;
}

export interface LoadedAggregate<S> {
  state: S;
  /** What to expect when appending after this read. */
  revision: ExpectedRevision;
}

/**
 * Reads a stream and folds it; an absent stream is the fold's initial state. With a `cache`, only
 * the events after the cached revision are read and folded (the store is still asked, so the
 * state is as fresh as without it), and the result is cached.
 */
export async function loadAggregate<S, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  fold: AggregateFold<S, E>,
  cache?: AggregateCache<S>,
): Promise<LoadedAggregate<S>> {
  const known = cache?.get(stream);
  const recorded = await store.readStream(stream, known ? { fromRevision: known.revision + 1n } : {});
  if (known && recorded.length === 0) return known;
  const state = recorded.reduce((s, r) => fold.evolve(s, fold.parse(toRawEvent(r))), known ? known.state : fold.initial);
  const last = recorded.at(-1);
  const loaded: LoadedAggregate<S> = { state, revision: last ? last.revision : 'no_stream' };
  cache?.set(stream, loaded);
  return loaded;
}

export interface CommandResult<S, E> {
  /** State after the new events. */
  state: S;
  /** What `decide` returned (empty when the command changed nothing). */
  events: E[];
  /**
   * Store position of the last appended event (undefined when nothing was appended), so a
   * handler can wait for its read model to show its own write (`ProjectionRunner.waitForPosition`).
   */
  position?: bigint;
}

export interface CommandOptions<S> {
  /** Appends tried before a conflict is given up on (default 10). */
  maxAttempts?: number;
  /** Folded streams of this aggregate type, kept by the caller across commands. */
  cache?: AggregateCache<S>;
}

/**
 * The handler loop of STYLE.md: read the stream, fold, decide, append with the expected
 * revision. A concurrent writer makes the append fail; the command is then decided again on
 * fresh state, a bounded number of times. `decide` is pure and may throw domain errors.
 *
 * With a `cache`, the first attempt decides on the cached state without reading: the append's
 * expected revision proves it current. Only an append proves it, so a cached state that decides
 * nothing or throws is decided again on the stream as read now, before that answer is given.
 */
export async function executeCommand<S, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  fold: AggregateFold<S, E>,
  decide: (state: S) => E[],
  metadata: EventMetadata,
  options: CommandOptions<S> = {},
): Promise<CommandResult<S, E>> {
  const { maxAttempts = 10, cache } = options;
  for (let attempt = 1; ; attempt++) {
    const cached = attempt === 1 ? cache?.get(stream) : undefined;
    const { state, revision } = cached ?? (await loadAggregate(store, stream, fold, cache));
    let events: E[];
    try {
      events = decide(state);
    } catch (error) {
      if (cached) continue;
      throw error;
    }
    if (events.length === 0) {
      if (cached) continue;
      return { state, events };
    }
    try {
      const appended = await store.append(stream, events.map((e) => toNewEvent(e, metadata)), { expectedRevision: revision });
      const next = events.reduce(fold.evolve, state);
      cache?.set(stream, { state: next, revision: appended.nextRevision });
      return { state: next, events, position: appended.position };
    } catch (error) {
      // Whatever the cause, the cached fold may no longer be the stream's: read it afresh.
      cache?.delete(stream);
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxAttempts) throw error;
    }
  }
}
