import { randomUUID } from 'node:crypto';
import type * as Pg from 'pg';
import type { ClientBase, Pool, QueryConfig } from 'pg';
import { processMetrics } from '@switchboard/telemetry';
import {
  StoredEvent,
  type AppendOptions, type AppendResult, type CountAfterOptions, type EventStore, type LastPositionOptions, type LogTail, type NewEvent,
  type ReadAllOptions, type ReadStreamOptions, type RecordedEvent, type SubscribeOptions, type Subscription, type SubscriptionStart,
} from '../event-store.js';
import { NotifiedLogTail, type TailSource } from '../log-tail.js';
import { PollingSubscription } from '../polling-subscription.js';
import { traceAppend } from '../tracing.js';
import { PostgresAppends, type AppendTarget } from './postgres-appends.js';
import { pg } from './postgres-driver.js';
import { PostgresListener } from './postgres-listener.js';
import { ensureEventLog, eventLogIn, type EventLog } from './postgres-schema.js';

export interface PostgresEventStoreOptions {
  /** The schema holding this store's tables: one per service (`sessions`, `quota`, …). Default `eventstore`. */
  schema?: string;
  /** Connections in the pool (default 4): appends use one at a time, reads and catch-ups the others. */
  poolSize?: number;
  /**
   * How often a live subscription reads again when no notification came (ms, default 1,000): the
   * fallback behind LISTEN/NOTIFY, which wakes it at once.
   */
  pollIntervalMs?: number;
}

interface EventRow {
  position: string; id: string; stream: string; revision: string; type: string;
  data: unknown; metadata: Record<string, unknown>; recorded_at: Date;
}

const columns = 'position, id, stream, revision, type, data, metadata, recorded_at';

/**
 * The event store on PostgreSQL (`pg`, node-postgres): one schema per service, one `events`
 * table in it, positions from a sequence drawn and committed in order under an advisory lock
 * (see PostgresAppends), subscriptions woken by LISTEN/NOTIFY with a slow poll behind it.
 */
export class PostgresEventStore implements EventStore {
  readonly #pool: Pool;
  readonly #log: EventLog;
  readonly #appends: PostgresAppends;
  readonly #listener: PostgresListener;
  readonly #pollIntervalMs: number;
  readonly #subscriptions = new Set<PollingSubscription>();
  #target: Promise<AppendTarget> | undefined;

  /** `url`: `postgres://user@host:5432/database` (or `postgresql://`). Nothing connects before the first call. */
  constructor(url: string, options: PostgresEventStoreOptions = {}) {
    this.#log = eventLogIn(options.schema ?? 'eventstore');
    const { Client, Pool } = pg();
    const connection = { connectionString: url, fallback_application_name: `switchboard-eventstore-${options.schema ?? 'eventstore'}` };
    this.#pool = new Pool({ ...connection, max: options.poolSize ?? 4, onConnect: forOrderedRanges, Client: countingQueries(Client, options.schema ?? 'eventstore') });
    // An idle connection that drops (a server restart) is removed from the pool; the next query opens another.
    this.#pool.on('error', () => undefined);
    this.#pollIntervalMs = options.pollIntervalMs ?? 1_000;
    const origin = randomUUID();
    this.#listener = new PostgresListener(() => new Client(connection), this.#log.channel, this.#pollIntervalMs, origin);
    this.#appends = new PostgresAppends(this.#pool, () => this.#ready(), origin, this.#listener.notifier);
  }

  append(stream: string, events: readonly NewEvent[], { expectedRevision, unchanged }: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new TypeError(`append to ${stream}: at least one event is required`));
    return traceAppend('postgresql', stream, events.length, () => this.#appends.append(stream, events, expectedRevision, unchanged));
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const { log } = await this.#ready();
    // Named, so prepared once per connection: one plan (along (stream, revision)) fits every stream.
    return this.#select({
      name: 'read-stream',
      text: `SELECT ${columns} FROM ${log.events} WHERE stream = $1 AND revision >= $2 ORDER BY revision LIMIT $3`,
      values: [stream, options.fromRevision ?? 0n, options.maxCount ?? null],
    });
  }

  readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.#readFrom(options.fromPosition ?? 0n, options.category, options.maxCount);
  }

  async lastPosition(options: LastPositionOptions = {}): Promise<bigint | undefined> {
    const { log } = await this.#ready();
    // MAX along the primary key or the category index: the planner reads the index's last entry.
    const { rows } = options.category === undefined
      ? await this.#pool.query<{ position: string | null }>(`SELECT MAX(position) AS position FROM ${log.events}`)
      : await this.#pool.query<{ position: string | null }>(
        `SELECT MAX(position) AS position FROM ${log.events} WHERE category = $1`, [options.category],
      );
    const position = rows[0]?.position;
    return position === null || position === undefined ? undefined : BigInt(position);
  }

  /** No cheap mark here: every read asks the server (what another writer appended shows up only there). */
  writeMark(): undefined {
    return undefined;
  }

  async countAfter(after: SubscriptionStart, options: CountAfterOptions): Promise<number> {
    const { log } = await this.#ready();
    const from = after === 'start' ? -1n : after;
    // The inner LIMIT stops the index walk at the cap.
    const { rows } = options.category === undefined
      ? await this.#pool.query<{ count: string }>(
        `SELECT COUNT(*) AS count FROM (SELECT 1 FROM ${log.events} WHERE position > $1 LIMIT $2) AS pending`, [from, options.limit],
      )
      : await this.#pool.query<{ count: string }>(
        `SELECT COUNT(*) AS count FROM (SELECT 1 FROM ${log.events} WHERE category = $1 AND position > $2 LIMIT $3) AS pending`,
        [options.category, from, options.limit],
      );
    return Number(rows[0]?.count ?? 0);
  }

  tail(category?: string): LogTail {
    return new NotifiedLogTail(this.#tailSource(category));
  }

  #tailSource(category: string | undefined): TailSource {
    return {
      // Listening before the first read: another writer's commit after it is announced, not missed.
      readAfter: async (after, limit) => {
        await this.#listener.listening();
        return this.#readFrom(after + 1n, category, limit);
      },
      notifier: this.#listener.notifier,
      category,
    };
  }

  subscribe(options: SubscribeOptions): Subscription {
    const source = { ...this.#tailSource(options.category), pollIntervalMs: this.#pollIntervalMs };
    const subscription: PollingSubscription = new PollingSubscription(
      source, options.from === 'start' ? 0n : options.from, () => this.#subscriptions.delete(subscription), options.signal,
    );
    this.#subscriptions.add(subscription);
    return subscription;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#subscriptions].map((subscription) => subscription.close()));
    // Appends already accepted keep their commit.
    await this.#appends.flush();
    await this.#listener.close();
    if (!this.#pool.ended) await this.#pool.end();
  }

  /** The log, created on first use (by whichever process comes first), and its append lock. */
  #ready(): Promise<AppendTarget> {
    this.#target ??= ensureEventLog(this.#pool, this.#log).then(
      (lockKey) => ({ log: this.#log, lockKey }),
      (error: unknown) => {
        this.#target = undefined;
        throw error;
      },
    );
    return this.#target;
  }

  async #readFrom(fromPosition: bigint, category: string | undefined, limit: number | undefined): Promise<RecordedEvent[]> {
    const { log } = await this.#ready();
    // Planned at each call: a category can be most of the log or a sliver of it, and the best index differs.
    return category === undefined
      ? this.#select({ text: `SELECT ${columns} FROM ${log.events} WHERE position >= $1 ORDER BY position LIMIT $2`, values: [fromPosition, limit ?? null] })
      : this.#select({
        text: `SELECT ${columns} FROM ${log.events} WHERE category = $1 AND position >= $2 ORDER BY position LIMIT $3`,
        values: [category, fromPosition, limit ?? null],
      });
  }

  async #select(query: QueryConfig): Promise<RecordedEvent[]> {
    const { rows } = await this.#pool.query<EventRow>(query);
    return rows.map(toRecordedEvent);
  }
}

/**
 * node-postgres' Client with each query counted in `switchboard_postgres_queries_total` (a query is
 * one round trip, a multi-statement one included): the pool's connections use it.
 */
function countingQueries(Client: typeof Pg.Client, schema: string): typeof Pg.Client {
  const query = Client.prototype.query as (...args: unknown[]) => unknown;
  const labels = { schema };
  class CountingClient extends Client {}
  CountingClient.prototype.query = function countedQuery(this: Pg.Client, ...args: unknown[]) {
    processMetrics().postgresQueries.inc(labels);
    return query.apply(this, args);
  } as Pg.Client['query'];
  return CountingClient;
}

/**
 * Every read here is an ordered range on a btree index, which a bitmap scan cannot return in order.
 * On a table not analyzed yet the planner still picks one (bitmap + sort) and reads the rest of a
 * category for each page: a catch-up turns quadratic. And at the default random_page_cost (4, for
 * spinning disks) it reads a category that is a tenth of the log along the primary key, skipping
 * nine rows in ten, because the (category, position) index's first column says nothing of the
 * table's order; 1.1 (the usual figure for SSDs and cached tables) has it take that index (a
 * third of the server CPU per event in the rebuild bench). Set on each pooled connection before its first query.
 */
async function forOrderedRanges(client: ClientBase): Promise<void> {
  await client.query('SET enable_bitmapscan = off; SET random_page_cost = 1.1');
}

// int8 columns arrive as strings (pg keeps them exact); json columns arrive parsed.
function toRecordedEvent(row: EventRow): RecordedEvent {
  return new StoredEvent(row.stream, row.type, BigInt(row.revision), BigInt(row.position), row.data, row.metadata, row.recorded_at, row.id);
}
