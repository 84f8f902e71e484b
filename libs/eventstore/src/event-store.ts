/**
 * The EventStore port: the only way services read and write their event streams.
 *
 * Glossary:
 * - stream: one aggregate instance's history, named `<category>-<id>` (`session-ses_01J…`).
 * - revision: an event's 0-based index inside its stream; contiguous, never reused.
 * - position: an event's place in the store-wide log; strictly increasing in append order,
 *   not contiguous (KurrentDB positions are byte offsets).
 * - checkpoint: the position of the last event a subscriber has fully processed.
 */

/** An event about to be appended. `id` defaults to a new UUID (time-ordered in the SQLite store). */
export interface NewEvent {
  type: string;
  data: unknown;
  metadata?: Record<string, unknown>;
  id?: string;
}

/** An event as stored: JSON data and metadata, with its place in the stream and the log. */
export interface RecordedEvent {
  stream: string;
  type: string;
  revision: bigint;
  position: bigint;
  data: unknown;
  metadata: Record<string, unknown>;
  recordedAt: Date;
  id: string;
}

/**
 * How every adapter builds the RecordedEvents it reads: a class, not an object literal. V8 tracks
 * the objects of each literal and, once most of them outlive a young-generation GC (a batch of
 * events being applied does), allocates that literal's objects straight into the old generation;
 * each event there then keeps its young data and metadata alive through every young GC until the
 * next full one. The runner's rebuild of the message status read model spent a quarter of its
 * time in those GCs (in each of 5 traced runs); objects made by `new` are never moved so.
 */
export class StoredEvent implements RecordedEvent {
  constructor(
    readonly stream: string,
    readonly type: string,
    readonly revision: bigint,
    readonly position: bigint,
    readonly data: unknown,
    readonly metadata: Record<string, unknown>,
    readonly recordedAt: Date,
    readonly id: string,
  ) {}
}

/**
 * What the writer believes about the stream:
 * a revision (its last event's revision), `no_stream`, `stream_exists`, or `any` (no check).
 */
export type ExpectedRevision = bigint | 'no_stream' | 'any' | 'stream_exists';

/** The stream's actual state when an expectation failed. */
export type ActualRevision = bigint | 'no_stream';

/** A stream an append's events were decided on, and the revision it was read at (see `AppendOptions.unchanged`). */
export interface StreamCondition {
  stream: string;
  revision: ActualRevision;
}

export interface AppendOptions {
  expectedRevision: ExpectedRevision;
  /**
   * Other streams the events were decided on (an account's plan, for a reservation on its usage),
   * each at the revision it was read at: the append is made only while every one is still there;
   * else nothing is appended and WrongExpectedRevisionError names the stream that moved. SQLite and
   * PostgreSQL check them in the append's own transaction, under its lock, so the decision needs no
   * read of those streams just before. KurrentDB, whose append writes one stream, reads their heads
   * just before it: what such a read gave, not atomic with the append.
   */
  unchanged?: readonly StreamCondition[] | undefined;
}

export interface AppendResult {
  /** Revision of the last appended event: pass it as `expectedRevision` on the next append. */
  nextRevision: bigint;
  /** Position of the last appended event. */
  position: bigint;
}

export interface ReadStreamOptions {
  /** First revision to return (inclusive). Default 0. */
  fromRevision?: bigint;
  maxCount?: number;
}

export interface ReadAllOptions {
  /** First position to return (inclusive). Default: the beginning of the log. */
  fromPosition?: bigint;
  /** Only streams named `<category>-…`. */
  category?: string;
  maxCount?: number;
}

/** `start`, or the checkpoint (position of the last processed event): delivery resumes after it. */
export type SubscriptionStart = 'start' | bigint;

export interface LastPositionOptions {
  /** Only streams named `<category>-…`. */
  category?: string;
}

export interface CountAfterOptions {
  /** Only streams named `<category>-…`. */
  category?: string;
  /** Counting stops here: a larger count reads as `limit`, so the answer stays cheap however far behind. */
  limit: number;
}

export interface SubscribeOptions {
  category?: string;
  from: SubscriptionStart;
  /** Aborting it ends the subscription like `close()`. */
  signal?: AbortSignal;
}

/**
 * A catch-up subscription: yields the stored events after `from`, then new ones as they are
 * appended, in position order, in batches (each one or more events: what the store had ready,
 * so a consumer can apply them with one write). Iterate it once with `for await`; `break`,
 * `close()` or the abort signal end it (a pending `next()` then resolves as done).
 */
export interface Subscription extends AsyncIterable<readonly RecordedEvent[]> {
  close(): Promise<void>;
}

/**
 * Reads of a log (or one category) after a position, for a reader that follows it on demand
 * instead of through a subscription (a publisher woken by appends, a feed paged by a client): the
 * same events as `readAll` after that position, and on the SQLite and PostgreSQL stores the
 * events this process just appended are handed over instead of being read back, when it asks on
 * from where its last read ended and nothing else can lie between. Keep one per reader.
 */
export interface LogTail {
  /**
   * Up to `limit` events with a position greater than `after`, in position order. `through`: a
   * position (a head read just before) the answer must hold every event up to, when not cut by
   * `limit`: handed-over events vouch only for what this process appended and what others announced.
   */
  readAfter(after: bigint, limit: number, through?: bigint): Promise<readonly RecordedEvent[]>;
}

/** What `writeMark` vouches for: taken before a read, it tells whether that read is still the latest. */
export interface WriteMark {
  /** True while nothing was appended to the mark's category since it was taken, by this process or any other. */
  unchanged(): boolean;
}

export interface EventStore {
  /**
   * Appends atomically: all events or none. Throws WrongExpectedRevisionError when the
   * stream is not in the expected state; a conflict is never overwritten.
   */
  append(stream: string, events: readonly NewEvent[], options: AppendOptions): Promise<AppendResult>;
  /**
   * Reads a stream forwards. A stream that does not exist reads as `[]` (not an error):
   * a handler folds nothing, sees "not created", and appends with `no_stream`.
   */
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  /** Reads the whole log (or one category) forwards, in position order, for replays. */
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * The position of the log's (or one category's) last event, `undefined` while it has none: the
   * head a catch-up must reach, found with one query instead of reading up to it.
   */
  lastPosition(options?: LastPositionOptions): Promise<bigint | undefined>;
  /** How many events of the log (or one category) come after `after`, up to `limit`: how far a reader lags. */
  countAfter(after: SubscriptionStart, options: CountAfterOptions): Promise<number>;
  /**
   * A mark of the appends to `category` so far, taken without reading the log, or undefined when
   * the store cannot take one that cheaply (PostgreSQL, KurrentDB). Taken right before reading a
   * stream, it says later whether a state folded from that read is still the stream's
   * (`loadAggregate`), without reading it again.
   */
  writeMark(category: string): WriteMark | undefined;
  subscribe(options: SubscribeOptions): Subscription;
  /** A reader's own tail of the log (or of `category`): see `LogTail`. */
  tail(category?: string): LogTail;
  close(): Promise<void>;
}

/** Thrown by `append` when the stream is not at the expected revision. */
export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';

  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: ActualRevision,
  ) {
    super(`Stream ${stream}: expected revision ${String(expected)}, actual ${String(actual)}`);
  }
}

/** The category of `session-ses_01J…` is `session`; a stream without `-` is its own category. */
export function categoryOf(stream: string): string {
  const dash = stream.indexOf('-');
  return dash === -1 ? stream : stream.slice(0, dash);
}

/** Whether a stream in `actual` state satisfies `expected`. */
export function revisionMatches(expected: ExpectedRevision, actual: ActualRevision): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return actual === 'no_stream';
    case 'stream_exists':
      return actual !== 'no_stream';
    default:
      return actual === expected;
  }
}
