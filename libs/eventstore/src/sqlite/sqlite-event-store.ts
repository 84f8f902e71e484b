import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { v7 as uuidv7 } from 'uuid';
import { pooledRandomBytes } from '@switchboard/telemetry';
import {
  StoredEvent, WrongExpectedRevisionError, categoryOf, revisionMatches,
  type ActualRevision, type AppendOptions, type AppendResult, type CountAfterOptions, type EventStore, type LastPositionOptions, type LogTail,
  type NewEvent, type ReadAllOptions, type ReadStreamOptions, type RecordedEvent, type SubscribeOptions, type Subscription,
  type SubscriptionStart, type WriteMark,
} from '../event-store.js';
import { notifierFor, type AppendedEvent, type AppendNotifier } from '../append-notifier.js';
import { chainEvents, chainHeadFrom } from '../hash-chain.js';
import { NotifiedLogTail, type TailSource } from '../log-tail.js';
import { PollingSubscription } from '../polling-subscription.js';
import { traceAppend } from '../tracing.js';
import { eventsSchema, openSqliteDatabase, type SqliteTuning } from './sqlite-database.js';
import { OtherWriters } from './other-writers.js';
import { TurnBatchedWrites } from './turn-batched-writes.js';

export interface SqliteEventStoreOptions extends SqliteTuning {
  /**
   * How often a live subscription looks for appends nobody told it of (ms): other processes'
   * commits wake it through the file system (`OtherWriters`), so this is only the fallback.
   */
  pollIntervalMs?: number;
}

/**
 * The fallback poll: idle, each live subscription reads once per this. Where the file system
 * reports the file's writes (`OtherWriters`, inotify on Linux) it only covers a report the kernel
 * dropped (an overflowing queue under a burst, and the next write reports again): it can be rare.
 * Without the watcher it is how other processes' appends are found.
 */
const FALLBACK_POLL_MS = { watched: 15_000, unwatched: 2_000 };

interface EventRow {
  position: bigint; id: string; stream: string; revision: bigint; type: string;
  data: string; metadata: string; recorded_at: bigint;
}

/** An append waiting for its turn's commit, and how it ended inside it. */
interface PendingAppend {
  stream: string;
  events: readonly NewEvent[];
  options: AppendOptions;
  outcome?: { ok: true; result: AppendResult; appended: AppendedEvent[] } | { ok: false; error: unknown };
}

const columns = 'position, id, stream, revision, type, data, metadata, recorded_at';
// SQLite reads LIMIT -1 as "no limit".
const noLimit = -1;

/**
 * The embedded event store: one SQLite file, shareable by several processes. Appends made in
 * one event-loop turn are committed together (group commit: one transaction, each append in a
 * savepoint of its own, so a conflict fails that append alone); each resolves once committed.
 */
export class SqliteEventStore implements EventStore {
  readonly #db: DatabaseSync;
  readonly #notifier: AppendNotifier;
  readonly #releaseNotifier: () => void;
  readonly #pollIntervalMs: number | undefined;
  readonly #subscriptions = new Set<PollingSubscription>();
  readonly #statements: ReturnType<typeof prepareStatements>;
  readonly #appends: TurnBatchedWrites<PendingAppend>;
  readonly #otherWriters: OtherWriters | undefined;

  constructor(file: string, options: SqliteEventStoreOptions = {}) {
    this.#db = openSqliteDatabase(file, eventsSchema, options);
    this.#pollIntervalMs = options.pollIntervalMs;
    this.#statements = prepareStatements(this.#db);
    // Held from here on, released by close(): taken after what could fail above.
    ({ notifier: this.#notifier, release: this.#releaseNotifier } = notifierFor(file));
    this.#otherWriters = file === ':memory:' ? undefined : new OtherWriters(file, this.#db, () => this.#notifier.notify());
    this.#appends = new TurnBatchedWrites(this.#db, (batch) => {
      for (const pending of batch) pending.outcome = this.#appendInSavepoint(pending);
    });
  }

  append(stream: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult> {
    if (events.length === 0) return Promise.reject(new TypeError(`append to ${stream}: at least one event is required`));
    return traceAppend('sqlite', stream, events.length, async () => {
      const pending: PendingAppend = { stream, events, options };
      await this.#appends.add(pending);
      const outcome = pending.outcome!;
      if (!outcome.ok) throw outcome.error;
      // Each append of the turn's commit in turn: their positions follow each other.
      this.#notifier.notifyAppended(outcome.appended);
      return outcome.result;
    });
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const rows = this.#statements.readStream.all(stream, options.fromRevision ?? 0n, options.maxCount ?? noLimit);
    return rows.map((row) => toRecordedEvent(row as unknown as EventRow));
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const from = options.fromPosition ?? 0n;
    return this.#readFrom(from, options.category, options.maxCount ?? noLimit);
  }

  async lastPosition(options: LastPositionOptions = {}): Promise<bigint | undefined> {
    const row = (options.category === undefined
      ? this.#statements.lastPosition.get()
      : this.#statements.lastPositionInCategory.get(options.category)) as { position: bigint | null };
    return row.position ?? undefined;
  }

  async countAfter(after: SubscriptionStart, options: CountAfterOptions): Promise<number> {
    const from = after === 'start' ? 0n : after;
    const row = (options.category === undefined
      ? this.#statements.countAfter.get(from, options.limit)
      : this.#statements.countAfterInCategory.get(options.category, from, options.limit)) as { count: bigint };
    return Number(row.count);
  }

  writeMark(category: string): WriteMark {
    // This process's appends through any store on the file move the notifier's version; another
    // connection's commits (another process, another store object) move `data_version`.
    const appends = this.#notifier.version(category);
    const commits = this.#dataVersion();
    return { unchanged: () => this.#notifier.version(category) === appends && this.#dataVersion() === commits };
  }

  #dataVersion(): number | bigint {
    return (this.#statements.dataVersion.get() as { data_version: number | bigint }).data_version;
  }

  tail(category?: string): LogTail {
    return new NotifiedLogTail(this.#tailSource(category));
  }

  #tailSource(category: string | undefined): TailSource {
    return { readAfter: (after, limit) => this.#readFrom(after + 1n, category, limit), notifier: this.#notifier, category };
  }

  subscribe(options: SubscribeOptions): Subscription {
    const after = options.from === 'start' ? 0n : options.from;
    const fallbackPollMs = () => this.#fallbackPollMs();
    const source = {
      ...this.#tailSource(options.category),
      // Asked at each wait: a watcher that fails later (its folder removed) brings the quick poll back.
      get pollIntervalMs(): number {
        return fallbackPollMs();
      },
    };
    const subscription: PollingSubscription = new PollingSubscription(
      source, after, () => this.#subscriptions.delete(subscription), options.signal,
    );
    this.#subscriptions.add(subscription);
    return subscription;
  }

  #fallbackPollMs(): number {
    return this.#pollIntervalMs ?? (this.#otherWriters?.watching ? FALLBACK_POLL_MS.watched : FALLBACK_POLL_MS.unwatched);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#subscriptions].map((subscription) => subscription.close()));
    this.#otherWriters?.close();
    // Appends already made keep their commit.
    this.#appends.flush();
    if (this.#db.isOpen) this.#db.close();
    this.#releaseNotifier();
  }

  #appendInSavepoint({ stream, events, options }: PendingAppend): NonNullable<PendingAppend['outcome']> {
    this.#db.exec('SAVEPOINT append');
    try {
      // Read inside the turn's transaction: an earlier append of the same turn is the head here.
      for (const condition of options.unchanged ?? []) {
        const { revision: at } = this.#streamHead(condition.stream);
        if (!revisionMatches(condition.revision, at)) throw new WrongExpectedRevisionError(condition.stream, condition.revision, at);
      }
      const { revision: actual, hash } = this.#streamHead(stream);
      if (!revisionMatches(options.expectedRevision, actual)) {
        throw new WrongExpectedRevisionError(stream, options.expectedRevision, actual);
      }
      const { chained } = chainEvents(chainHeadFrom(hash), events);
      const appended = this.#insert(stream, actual === 'no_stream' ? 0n : actual + 1n, chained);
      this.#db.exec('RELEASE append');
      const last = appended.at(-1)!;
      return { ok: true, result: { nextRevision: last.revision, position: last.position }, appended };
    } catch (error) {
      this.#db.exec('ROLLBACK TO append');
      this.#db.exec('RELEASE append');
      return { ok: false, error };
    }
  }

  /** The events as stored, with their positions. */
  #insert(stream: string, firstRevision: bigint, events: readonly NewEvent[]): AppendedEvent[] {
    const category = categoryOf(stream);
    const recordedAtMs = Date.now();
    let revision = firstRevision - 1n;
    return events.map((event) => {
      revision += 1n;
      const id = event.id ?? newEventId();
      const data = JSON.stringify(event.data ?? null);
      const metadata = JSON.stringify(event.metadata ?? {});
      const inserted = this.#statements.insert.run(id, stream, category, revision, event.type, data, metadata, recordedAtMs);
      return { stream, category, type: event.type, revision, position: BigInt(inserted.lastInsertRowid), data, metadata, recordedAtMs, id };
    });
  }

  /** The stream's last revision and the hash its next event links to, in one lookup. */
  #streamHead(stream: string): { revision: ActualRevision; hash: unknown } {
    const row = this.#statements.streamHead.get(stream) as { revision: bigint; hash: unknown } | undefined;
    return row === undefined ? { revision: 'no_stream', hash: undefined } : row;
  }

  #readFrom(fromPosition: bigint, category: string | undefined, limit: number): RecordedEvent[] {
    const rows = category === undefined
      ? this.#statements.readAll.all(fromPosition, limit)
      : this.#statements.readCategory.all(category, fromPosition, limit);
    return rows.map((row) => toRecordedEvent(row as unknown as EventRow));
  }
}

/**
 * The id of an event appended without one: a UUID of version 7, whose first 48 bits are the time in
 * milliseconds (counted on within one). The events table indexes ids as unique; time-ordered ids
 * are added at the end of that index, where random ones (version 4) landed on a random page of it,
 * rewritten at each commit: in `npm run bench -w @switchboard/eventstore`, 10-event appends took
 * 354-365 µs of CPU against 571-825 with version 4, and 1-event appends from 16 writers 47-54 µs
 * against 66-97. (The PostgreSQL store keeps version 4: there the same change took more CPU, likely
 * from its `text` index comparing the ids under the database's collation.)
 */
function newEventId(): string {
  // The random bits come from the process's pool: uuid draws them with a `getRandomValues` call
  // otherwise, about 2 µs an id (1.6 % of an embedded send's CPU at 16 in flight, five ids a send).
  // Given its randomness, uuid keeps no counter, so ids of one millisecond are counted on here,
  // as uuid counts them (RFC 9562's method 1: a 31-bit counter seeded at random each millisecond).
  const random = pooledRandomBytes(16);
  const now = Date.now();
  if (now > idClock.msecs) {
    idClock.msecs = now;
    idClock.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    idClock.seq = (idClock.seq + 1) | 0;
    if (idClock.seq === 0) idClock.msecs += 1;
  }
  return uuidv7({ random, msecs: idClock.msecs, seq: idClock.seq });
}

/** The time and counter of the last event id made in this process. */
const idClock = { msecs: -Infinity, seq: 0 };

function prepareStatements(db: DatabaseSync) {
  const statements = {
    insert: db.prepare(
      'INSERT INTO events (id, stream, category, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ),
    // The last entry of the (stream, revision) index, and the chain head from its row.
    streamHead: db.prepare("SELECT revision, json_extract(metadata, '$.hash') AS hash FROM events WHERE stream = ? ORDER BY revision DESC LIMIT 1"),
    dataVersion: db.prepare('PRAGMA data_version'),
    readStream: db.prepare(`SELECT ${columns} FROM events WHERE stream = ? AND revision >= ? ORDER BY revision LIMIT ?`),
    readAll: db.prepare(`SELECT ${columns} FROM events WHERE position >= ? ORDER BY position LIMIT ?`),
    readCategory: db.prepare(
      `SELECT ${columns} FROM events WHERE category = ? AND position >= ? ORDER BY position LIMIT ?`,
    ),
    // MAX over the primary key, or the last entry of the category index: one lookup, not a scan.
    lastPosition: db.prepare('SELECT MAX(position) AS position FROM events'),
    lastPositionInCategory: db.prepare('SELECT MAX(position) AS position FROM events WHERE category = ?'),
    // The inner LIMIT stops the index walk at the cap.
    countAfter: db.prepare('SELECT COUNT(*) AS count FROM (SELECT 1 FROM events WHERE position > ? LIMIT ?)'),
    countAfterInCategory: db.prepare(
      'SELECT COUNT(*) AS count FROM (SELECT 1 FROM events WHERE category = ? AND position > ? LIMIT ?)',
    ),
  } satisfies Record<string, StatementSync>;
  // Revisions and positions are 64-bit; reading them as bigint keeps them exact.
  for (const statement of Object.values(statements)) statement.setReadBigInts(true);
  return statements;
}

function toRecordedEvent(row: EventRow): RecordedEvent {
  return new StoredEvent(row.stream, row.type, row.revision, row.position, JSON.parse(row.data) as unknown,
    JSON.parse(row.metadata) as Record<string, unknown>, new Date(Number(row.recorded_at)), row.id);
}
