import type { EventMetadata, RawEvent } from '@switchboard/contracts';
import { WrongExpectedRevisionError } from '@switchboard/eventstore';
import type { EventStore, ExpectedRevision } from '@switchboard/eventstore';
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

/** Reads a stream and folds it; an absent stream is the fold's initial state. */
export async function loadAggregate<S, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  fold: AggregateFold<S, E>,
): Promise<LoadedAggregate<S>> {
  const recorded = await store.readStream(stream);
  const state = recorded.reduce((s, r) => fold.evolve(s, fold.parse(toRawEvent(r))), fold.initial);
  const last = recorded.at(-1);
  return { state, revision: last ? last.revision : 'no_stream' };
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

/**
 * The handler loop of STYLE.md: read the stream, fold, decide, append with the expected
 * revision. A concurrent writer makes the append fail; the command is then decided again on
 * fresh state, a bounded number of times. `decide` is pure and may throw domain errors.
 */
export async function executeCommand<S, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  fold: AggregateFold<S, E>,
  decide: (state: S) => E[],
  metadata: EventMetadata,
  maxAttempts = 10,
): Promise<CommandResult<S, E>> {
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = await loadAggregate(store, stream, fold);
    const events = decide(state);
    if (events.length === 0) return { state, events };
    try {
      const appended = await store.append(stream, events.map((e) => toNewEvent(e, metadata)), { expectedRevision: revision });
      return { state: events.reduce(fold.evolve, state), events, position: appended.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxAttempts) throw error;
    }
  }
}
