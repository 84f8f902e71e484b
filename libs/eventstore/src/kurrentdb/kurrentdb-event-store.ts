import type { AllStreamResolvedEvent, KurrentDBClient, ResolvedEvent } from '@kurrent/kurrentdb-client';
import { kurrent } from './kurrentdb-client.js';
import {
  WrongExpectedRevisionError, revisionMatches,
  type ActualRevision, type AppendOptions, type AppendResult, type CountAfterOptions, type EventStore, type ExpectedRevision,
  type LastPositionOptions, type LogTail, type NewEvent, type ReadAllOptions, type ReadStreamOptions, type RecordedEvent, type SubscribeOptions,
  type Subscription, type SubscriptionStart,
} from '../event-store.js';
import { GENESIS_HASH, chainEvents, chainHeadFrom } from '../hash-chain.js';
import { traceAppend } from '../tracing.js';
import {
  isUserEvent, mapAppendError, subscriptionStart, toEventData, toMetadata, toReadPosition, toRecordedEvent, toStreamState,
} from './kurrentdb-mapping.js';
import { KurrentDbSubscription } from './kurrentdb-subscription.js';

/**
 * The distributed event store: KurrentDB (formerly EventStoreDB) through its official
 * client, `@kurrent/kurrentdb-client`, the maintained successor of `@eventstore/db-client`.
 * Categories are read with a server-side stream-name filter on `$all`, so they work
 * without the `$by_category` system projection that `$ce-` streams would need.
 */
export class KurrentDbEventStore implements EventStore {
  readonly #client: KurrentDBClient;
  readonly #subscriptions = new Set<KurrentDbSubscription>();

  /** `connectionString`: `kurrentdb://host:2113?tls=false`, or the deprecated `esdb://`. */
  constructor(connectionString: string) {
    this.#client = kurrent().KurrentDBClient.connectionString(connectionString);
  }

  append(stream: string, events: readonly NewEvent[], { expectedRevision, unchanged = [] }: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new TypeError(`append to ${stream}: at least one event is required`));
    return traceAppend('kurrentdb', stream, events.length, async () => {
      // One stream per append here: the conditions are read just before it, not in its transaction.
      for (const condition of unchanged) {
        const { revision: at } = await this.#streamHead(condition.stream);
        if (!revisionMatches(condition.revision, at)) throw new WrongExpectedRevisionError(condition.stream, condition.revision, at);
      }
      return this.#appendChained(stream, events, expectedRevision);
    });
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const read = this.#client.readStream(stream, {
      fromRevision: options.fromRevision ?? kurrent().START,
      direction: kurrent().FORWARDS,
      ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
    });
    try {
      return await collect(read);
    } catch (error) {
      // A missing stream reads as empty, as in every adapter (see EventStore.readStream).
      if (isStreamNotFound(error)) return [];
      throw error;
    }
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const read = this.#client.readAll({
      fromPosition: options.fromPosition === undefined ? kurrent().START : toReadPosition(options.fromPosition),
      direction: kurrent().FORWARDS,
      filter: categoryFilter(options.category),
      ...(options.maxCount === undefined ? {} : { maxCount: options.maxCount }),
    });
    return collect(read);
  }

  async lastPosition(options: LastPositionOptions = {}): Promise<bigint | undefined> {
    // Backwards from the end with the server-side filter: the first user event met is the last one.
    const read = this.#client.readAll({
      fromPosition: kurrent().END,
      direction: kurrent().BACKWARDS,
      filter: categoryFilter(options.category),
    });
    // Leaving the loop early ends the read (the iterator's return cancels the gRPC stream).
    for await (const resolved of read) {
      if (isUserEvent(resolved.event)) return toRecordedEvent(resolved.event, resolved.commitPosition).position;
    }
    return undefined;
  }

  /** No cheap mark here: every read asks the server (what another writer appended shows up only there). */
  writeMark(): undefined {
    return undefined;
  }

  async countAfter(after: SubscriptionStart, options: CountAfterOptions): Promise<number> {
    // KurrentDB has no count: read forwards (from the event at `after`, which reads inclusively) up to the limit.
    const read = this.#client.readAll({
      fromPosition: subscriptionStart(after),
      direction: kurrent().FORWARDS,
      filter: categoryFilter(options.category),
      maxCount: options.limit + 1,
    });
    let count = 0;
    for await (const resolved of read) {
      if (!isUserEvent(resolved.event)) continue;
      if (after !== 'start' && toRecordedEvent(resolved.event, resolved.commitPosition).position <= after) continue;
      count += 1;
      if (count === options.limit) break;
    }
    return count;
  }

  /** Every read asks the server (so it holds everything up to any `through`): this client keeps no appends. */
  tail(category?: string): LogTail {
    return { readAfter: (after, limit) => this.readAll({ ...(category === undefined ? {} : { category }), fromPosition: after + 1n, maxCount: limit }) };
  }

  subscribe(options: SubscribeOptions): Subscription {
    const source = this.#client.subscribeToAll({
      fromPosition: subscriptionStart(options.from),
      filter: categoryFilter(options.category),
    });
    const subscription: KurrentDbSubscription = new KurrentDbSubscription(
      source, () => this.#subscriptions.delete(subscription), options.signal,
    );
    this.#subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#subscriptions].map((subscription) => subscription.close()));
    await this.#client.dispose();
  }

  /**
   * KurrentDB has no transaction to read the chain head in: read it, then append expecting exactly
   * that revision, so no event can slip in between. Under `any` or `stream_exists`, a writer that
   * got in first moved the head: chain on the new one and try again.
   */
  async #appendChained(stream: string, events: readonly NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    for (let attempt = 1; ; attempt += 1) {
      const head = await this.#streamHead(stream);
      if (!revisionMatches(expected, head.revision)) throw new WrongExpectedRevisionError(stream, expected, head.revision);
      const { chained } = chainEvents(head.hash, events);
      try {
        const result = await this.#client.appendToStream(stream, chained.map(toEventData), { streamState: toStreamState(head.revision) });
        if (!result.position) throw new Error(`KurrentDB acknowledged ${stream} without a position`);
        return { nextRevision: result.nextExpectedRevision, position: result.position.commit };
      } catch (error) {
        const mapped = mapAppendError(error, stream, expected);
        const headMoved = mapped instanceof WrongExpectedRevisionError && (expected === 'any' || expected === 'stream_exists');
        if (!headMoved || attempt === maxChainAttempts) throw mapped;
      }
    }
  }

  /** The stream's last revision and the hash its next event links to: one backward read of one event. */
  async #streamHead(stream: string): Promise<{ revision: ActualRevision; hash: string }> {
    const read = this.#client.readStream(stream, { fromRevision: kurrent().END, direction: kurrent().BACKWARDS, maxCount: 1 });
    try {
      for await (const { event } of read) {
        if (event) return { revision: event.revision, hash: chainHeadFrom(toMetadata(event.metadata)['hash']) };
      }
    } catch (error) {
      if (!isStreamNotFound(error)) throw error;
    }
    return { revision: 'no_stream', hash: GENESIS_HASH };
  }
}

/** How often an `any` or `stream_exists` append re-reads a head that moved before it gives up. */
const maxChainAttempts = 20;

/**
 * A server-side stream-name filter matching `categoryOf` exactly: `session-…`, and a stream
 * named just `session`, but not `sessions-…`.
 */
function categoryFilter(category: string | undefined) {
  if (category === undefined) return kurrent().excludeSystemEvents();
  return kurrent().streamNameFilter({ regex: `^${escapeRegex(category)}(-|$)` });
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

async function collect(read: AsyncIterable<ResolvedEvent | AllStreamResolvedEvent>): Promise<RecordedEvent[]> {
  const recorded: RecordedEvent[] = [];
  for await (const resolved of read) {
    if (isUserEvent(resolved.event)) recorded.push(toRecordedEvent(resolved.event, resolved.commitPosition));
  }
  return recorded;
}

function isStreamNotFound(error: unknown): boolean {
  return error instanceof kurrent().StreamNotFoundError;
}
