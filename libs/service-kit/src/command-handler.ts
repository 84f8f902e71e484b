import type { EventMetadata, RawEvent } from '@switchboard/contracts';
import { categoryOf, WrongExpectedRevisionError } from '@switchboard/eventstore';
import type { EventStore, ExpectedRevision, RecordedEvent, StreamCondition, WriteMark } from '@switchboard/eventstore';
import type { AggregateCache } from './aggregate-cache.js';
import { toNewEvent, toRawEvent } from './stored-events.js';
import type { DomainEvent } from './stored-events.js';

/** How one aggregate's stream folds into its state. */
export interface AggregateFold<S, E extends DomainEvent> {
  initial: S;
  evolve(state: S, event: E): S;
  /** Validates a stored event (a contracts event parser's `parse`). */
  parse(raw: RawEvent): E;
  /**
   * Fetches what `parse` needs beyond the events (the keys of sealed contents), before a read
   * stream is parsed; `parse` itself stays synchronous.
   */
  prepare?(recorded: readonly RecordedEvent[]): Promise<void>;
  /** How a decided event is written, when not as it is (a content sealed before it is stored). */
  encode?(event: E): DomainEvent;
}

export interface LoadedAggregate<S> {
  state: S;
  /** What to expect when appending after this read. */
  revision: ExpectedRevision;
  /** The store's mark taken right before the read (see `EventStore.writeMark`), when it has one. */
  mark?: WriteMark | undefined;
}

/**
 * Reads a stream and folds it; an absent stream is the fold's initial state. With a `cache`, only
 * the events after the cached revision are read and folded, and the result is cached; a cached
 * state whose write mark (taken before the read it came from) shows nothing appended since is
 * current as it is, so the store is not read at all. Either way the state is as fresh as without
 * the cache.
 */
export async function loadAggregate<S, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  fold: AggregateFold<S, E>,
  cache?: AggregateCache<S>,
): Promise<LoadedAggregate<S>> {
  const known = cache?.get(stream);
  if (known?.mark?.unchanged()) return known;
  // Only a cached state is ever checked against its mark.
  const mark = cache ? store.writeMark(categoryOf(stream)) : undefined;
  const recorded = await store.readStream(stream, known ? { fromRevision: known.revision + 1n } : {});
  if (known && recorded.length === 0) {
    const current = { ...known, mark };
    cache?.set(stream, current);
    return current;
  }
  if (fold.prepare) await fold.prepare(recorded);
  const state = recorded.reduce((s, r) => fold.evolve(s, fold.parse(toRawEvent(r))), known ? known.state : fold.initial);
  const last = recorded.at(-1);
  const loaded: LoadedAggregate<S> = { state, revision: last ? last.revision : 'no_stream', mark };
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
  /** Revision of this command's last event in its stream (an `eventRef` for what it causes next). */
  revision?: bigint;
}

export interface CommandOptions<S> {
  /** Appends tried before a conflict is given up on (default 10). */
  maxAttempts?: number;
  /** Folded streams of this aggregate type, kept by the caller across commands. */
  cache?: AggregateCache<S>;
  /**
   * The stream should not exist yet (its id was just minted): the first attempt decides on the
   * fold's initial state without reading, and the append's expected revision (`no_stream`) proves
   * it. A stream that exists after all fails that append and is read as after any conflict.
   */
  fresh?: boolean;
}

/**
 * The handler loop of STYLE.md: read the stream, fold, decide, append with the expected
 * revision. A concurrent writer makes the append fail; the command is then decided again on
 * fresh state, a bounded number of times. `decide` is pure and may throw domain errors.
 *
 * With a `cache`, the first attempt decides on the cached state without reading: the append's
 * expected revision proves it current. A cached state that decides nothing or throws is proven
 * only by the store's write mark showing nothing appended since the read it came from (see
 * `EventStore.writeMark`); without that, it is decided again on the stream as read now, before
 * that answer is given.
 */
export async function executeCommand<S, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  fold: AggregateFold<S, E>,
  decide: (state: S) => E[],
  metadata: EventMetadata,
  options: CommandOptions<S> = {},
): Promise<CommandResult<S, E>> {
  const [outcome] = await runCommands(store, stream, fold, [{ decide, view: (state: S) => state, metadata: () => metadata }], options);
  if (!outcome!.ok) throw outcome!.error;
  const { events, position, revision } = outcome!;
  const state = outcome!.view as S;
  return position === undefined ? { state, events } : { state, events, position, revision: revision! };
}

/** A command's result read through its `view`, right after its own events (see `CommandQueue`). */
export interface QueuedCommandResult<R, E> {
  view: R;
  events: E[];
  /** Store position of the append that carried the events; undefined when the command changed nothing. */
  position?: bigint;
  /** Revision of this command's last event in its stream. */
  revision?: bigint;
}

export interface CommandQueueOptions<S> extends CommandOptions<S> {
  /** Commands of one stream decided and appended together at most (default 256). */
  maxBatch?: number;
}

/**
 * `executeCommand` with group commit, for streams that many requests write at once (quota's
 * daily usage, an account): commands queued on one stream while its previous batch is being
 * appended are decided one after the other on the evolving state and appended together, with
 * one expected revision. A command whose decision throws fails alone. Across processes the
 * expected revision decides (a conflict re-decides the whole batch), so no replica holds a lock.
 * `view` copies what the caller needs out of the state right after its command (a fold may
 * hand its state's maps on to the next command of the batch), with the stream revision that state
 * is at once the batch is appended (`no_stream` for a stream that has none).
 */
export class CommandQueue<S, E extends DomainEvent> {
  private readonly queues = new Map<string, QueuedCommand<S, E>[]>();
  private readonly options: CommandQueueOptions<S>;

  constructor(
    private readonly store: EventStore,
    private readonly fold: AggregateFold<S, E>,
    options: CommandQueueOptions<S> = {},
  ) {
    this.options = { maxAttempts: 50, ...options };
  }

  /**
   * `unchanged`: other streams the decision rests on, at the revisions it read them (see
   * `AppendOptions.unchanged`); when one moved, the command fails with the store's
   * WrongExpectedRevisionError naming it, for the caller to read that stream again and retry.
   */
  execute<R>(
    stream: string, decide: (state: S) => E[], view: (state: S, revision: ExpectedRevision) => R, metadata: () => EventMetadata, unchanged?: readonly StreamCondition[],
  ): Promise<QueuedCommandResult<R, E>> {
    return new Promise((resolve, reject) => {
      const command: QueuedCommand<S, E> = {
        decide, view, metadata, unchanged, settle: (o) => (o.ok ? resolve(resultOf(o) as QueuedCommandResult<R, E>) : reject(o.error)),
      };
      const queue = this.queues.get(stream);
      if (queue) return void queue.push(command);
      this.queues.set(stream, [command]);
      void this.drain(stream);
    });
  }

  /** Runs batches for a stream until its queue is empty; only one drain per stream at a time. */
  private async drain(stream: string): Promise<void> {
    for (;;) {
      const queue = this.queues.get(stream) ?? [];
      // One append carries one set of conditions: a batch is the commands that share the first one's.
      const sharing = queue.findIndex((command) => !sameConditions(command.unchanged, queue[0]!.unchanged));
      const batch = queue.splice(0, Math.min(sharing === -1 ? queue.length : sharing, this.options.maxBatch ?? 256));
      if (batch.length === 0) return void this.queues.delete(stream);
      try {
        const outcomes = await runCommands(this.store, stream, this.fold, batch, this.options);
        batch.forEach((command, i) => command.settle(outcomes[i]!));
      } catch (error) {
        for (const command of batch) command.settle({ ok: false, error });
      }
    }
  }
}

interface Command<S, E> {
  decide(state: S): E[];
  view(state: S, revision: ExpectedRevision): unknown;
  metadata(): EventMetadata;
  unchanged?: readonly StreamCondition[] | undefined;
}

function sameConditions(a: readonly StreamCondition[] = [], b: readonly StreamCondition[] = []): boolean {
  return a.length === b.length && a.every((condition, i) => condition.stream === b[i]!.stream && condition.revision === b[i]!.revision);
}

interface QueuedCommand<S, E> extends Command<S, E> {
  settle(outcome: Outcome<E>): void;
}

type Outcome<E> = { ok: true; events: E[]; view: unknown; position?: bigint | undefined; revision?: bigint | undefined } | { ok: false; error: unknown };

function resultOf<E>(outcome: Extract<Outcome<E>, { ok: true }>): QueuedCommandResult<unknown, E> {
  const { view, events, position, revision } = outcome;
  return position === undefined ? { view, events } : { view, events, position, revision: revision! };
}

/**
 * The one command loop: decides `commands` in order on the stream's state (the cached one first,
 * else read), appends all their events at once with the expected revision, and retries on a
 * conflict. Returns each command's outcome; throws only what the store threw.
 */
async function runCommands<S, E extends DomainEvent>(
  store: EventStore,
  stream: string,
  fold: AggregateFold<S, E>,
  commands: readonly Command<S, E>[],
  { maxAttempts = 10, cache, fresh = false }: CommandOptions<S>,
): Promise<Outcome<E>[]> {
  for (let attempt = 1; ; attempt++) {
    // Assumed, like a cached state: only an append (or the write mark) vouches for it.
    const assumed: LoadedAggregate<S> | undefined = fresh ? { state: fold.initial, revision: 'no_stream' } : undefined;
    const cached = attempt === 1 ? cache?.get(stream) ?? assumed : undefined;
    const { state, revision } = cached ?? (await loadAggregate(store, stream, fold, cache));
    const decided = decideInOrder(commands, state, revision, fold);
    if (cached && decided.outcomes.some((o) => !o.ok || o.events.length === 0) && !cached.mark?.unchanged()) {
      // A refusal or a no-op on a cached state the write mark does not vouch for is decided again
      // on the stream as read now. A fold that evolved in place leaves the cache unusable.
      if (decided.evolved) cache?.delete(stream);
      continue;
    }
    const toAppend = decided.outcomes.flatMap((o, i) => (o.ok && o.events.length > 0 ? o.events.map((e) => toNewEvent(fold.encode ? fold.encode(e) : e, commands[i]!.metadata())) : []));
    if (toAppend.length === 0) return decided.outcomes;
    try {
      // One set of conditions per batch (see `drain`).
      const appended = await store.append(stream, toAppend, { expectedRevision: revision, unchanged: commands[0]!.unchanged });
      cache?.set(stream, { state: decided.state, revision: appended.nextRevision });
      // Each command's last event: counted back from the batch's last one.
      let after = appended.nextRevision - BigInt(toAppend.length);
      return decided.outcomes.map((o) => {
        if (!o.ok || o.events.length === 0) return o;
        after += BigInt(o.events.length);
        return { ...o, position: appended.position, revision: after };
      });
    } catch (error) {
      // Whatever the cause, the cached fold may no longer be the stream's (a fold may have evolved it in place): read it afresh.
      cache?.delete(stream);
      // A condition's stream moved, not this one: the caller reads that one again and decides anew.
      const conflict = error instanceof WrongExpectedRevisionError && error.stream === stream;
      if (!conflict || attempt >= maxAttempts) throw error;
    }
  }
}

/** Each command decided on the state its predecessors left, so limits count them; its view read right after. */
function decideInOrder<S, E extends DomainEvent>(commands: readonly Command<S, E>[], start: S, from: ExpectedRevision, fold: AggregateFold<S, E>) {
  let state = start;
  let revision = from;
  let evolved = false;
  const outcomes = commands.map((command): Outcome<E> => {
    try {
      const events = command.decide(state);
      if (events.length > 0) {
        state = events.reduce(fold.evolve, state);
        evolved = true;
        revision = (typeof revision === 'bigint' ? revision : -1n) + BigInt(events.length);
      }
      return { ok: true, events, view: command.view(state, revision) };
    } catch (error) {
      return { ok: false, error };
    }
  });
  return { outcomes, state, evolved };
}
