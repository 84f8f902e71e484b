import type { AllStreamResolvedEvent, KurrentDBClient, ResolvedEvent } from '@kurrent/kurrentdb-client';
import { kurrent } from './kurrentdb-client.js';
import type {
  AppendOptions, AppendResult, EventStore, NewEvent, ReadAllOptions, ReadStreamOptions, RecordedEvent,
  SubscribeOptions, Subscription,
} from '../event-store.js';
import { traceAppend } from '../tracing.js';
import {
  isUserEvent, mapAppendError, subscriptionStart, toEventData, toReadPosition, toRecordedEvent, toStreamState,
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

  append(stream: string, events: readonly NewEvent[], { expectedRevision }: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new TypeError(`append to ${stream}: at least one event is required`));
    return traceAppend('kurrentdb', stream, events.length, async () => {
      try {
        const result = await this.#client.appendToStream(stream, events.map(toEventData), {
          streamState: toStreamState(expectedRevision),
        });
        if (!result.position) throw new Error(`KurrentDB acknowledged ${stream} without a position`);
        return { nextRevision: result.nextExpectedRevision, position: result.position.commit };
      } catch (error) {
        throw mapAppendError(error, stream, expectedRevision);
      }
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
}

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
