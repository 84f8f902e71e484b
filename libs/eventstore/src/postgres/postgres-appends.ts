import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient, QueryResult } from 'pg';
import {
  WrongExpectedRevisionError, categoryOf, revisionMatches,
  type ActualRevision, type AppendResult, type ExpectedRevision, type NewEvent, type StreamCondition,
} from '../event-store.js';
import type { AppendedEvent, AppendNotifier } from '../append-notifier.js';
import { GENESIS_HASH, chainEvents, chainHeadFrom } from '../hash-chain.js';
import { announcementPayload } from './append-announcement.js';
import { uniqueViolation, withConnection } from './postgres-driver.js';
import { uniqueRevisionConstraint, type EventLog } from './postgres-schema.js';

/** The log appends go to, and the key of its append lock (known once the schema exists). */
export interface AppendTarget {
  log: EventLog;
  lockKey: bigint;
}

/** One `append` call: what it writes and what it expects the stream to be. */
export interface AppendRequest {
  stream: string;
  events: readonly NewEvent[];
  expectedRevision: ExpectedRevision;
  /** Other streams that must still be at these revisions (`AppendOptions.unchanged`). */
  unchanged?: readonly StreamCondition[] | undefined;
}

interface PendingAppend extends AppendRequest {
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
}

/** A stream's last revision and the hash its next event links to. */
export interface StreamHead {
  revision: bigint;
  hash: string;
}

/** An append decided inside its batch: the revision it reached and its last row, or why it was refused. */
export type Decision = { ok: true; nextRevision: bigint; lastRow: number } | { ok: false; error: unknown };

const maxAppendsPerBatch = 1_000;
/** Streams whose head this store remembers from its own commits (a send's messages, an account's usage day). */
const REMEMBERED_HEADS = 4_096;

/**
 * Group commit, as in the SQLite store: the appends a store receives while its previous batch
 * commits are decided together in ONE transaction (each on its own: a conflict fails that append
 * alone), and each resolves once that transaction has committed.
 *
 * Commit order = position order, by serializing appends per log: every batch takes
 * `pg_advisory_xact_lock(<this log's key>)` before it draws positions, and PostgreSQL releases a
 * transaction's locks only after its commit is visible to new snapshots. So no transaction can
 * hold a smaller position while a larger one is already readable, and a reader that has seen
 * position 12 can never later find an 11 (the classic sequence race that makes catch-up readers
 * skip events). Chosen over holding reads back behind `pg_snapshot_xmin` (writers commit in
 * parallel, but a position checkpoint alone then is not enough: it needs (xid, position)
 * pairs, and every subscriber stalls behind any long transaction on the server). The price is
 * one committing batch at a time per log, about one fsync each; group commit wins it back.
 */
export class PostgresAppends {
  #queue: PendingAppend[] = [];
  #draining: Promise<void> | undefined;
  /** The heads this store's commits left, most recent last: what a batch is first decided on. */
  readonly #heads = new Map<string, StreamHead>();

  constructor(
    private readonly pool: Pool,
    private readonly target: () => Promise<AppendTarget>,
    /** Names this store in its commits' NOTIFY, so that its own listener skips their echo. */
    private readonly origin: string,
    /** Told of each commit's events (wakes this store's subscriptions, and hands them the events). */
    private readonly notifier: AppendNotifier,
  ) {}

  append(stream: string, events: readonly NewEvent[], expectedRevision: ExpectedRevision, unchanged?: readonly StreamCondition[]): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ stream, events, expectedRevision, unchanged, resolve, reject });
      this.#draining ??= this.#drain();
    });
  }

  /** Resolves once every append accepted so far has committed or failed. */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain(): Promise<void> {
    // Let the rest of this event-loop turn queue its appends, so they share the first commit too.
    await new Promise((resolve) => setImmediate(resolve));
    try {
      while (this.#queue.length > 0) await this.#commit(this.#queue.splice(0, maxAppendsPerBatch));
    } finally {
      this.#draining = undefined;
    }
  }

  async #commit(batch: PendingAppend[]): Promise<void> {
    let committed: Committed;
    try {
      const target = await this.target();
      committed = await withConnection(this.pool, (client) => this.#appendBatch(client, target, batch));
    } catch (error) {
      // It may have committed all the same (a connection lost after COMMIT was sent), and this
      // store's listener skips its own announcements: the categories it wrote to are woken, as
      // for another writer's commit (read from the server: what it holds is not known here).
      for (const category of new Set(batch.map((pending) => categoryOf(pending.stream)))) this.notifier.notify(category);
      for (const pending of batch) this.#heads.delete(pending.stream);
      return this.#failed(batch, error);
    }
    const { decisions, appended, heads } = committed;
    this.#remember(heads);
    batch.forEach((pending, i) => {
      const decision = decisions[i]!;
      if (decision.ok) pending.resolve({ nextRevision: decision.nextRevision, position: appended[decision.lastRow]!.position });
      else pending.reject(decision.error);
    });
    this.notifier.notifyAppended(appended);
  }

  /**
   * One round trip when the batch decides on the heads this store's own commits left (or, for a
   * stream it does not know, on none: a new stream's first append; for a condition's stream, on
   * the revision the condition names): lock, insert, NOTIFY and commit, the insert made only if the
   * streams' heads under the lock are the ones assumed. A head moved elsewhere (another writer, a
   * restored database, a condition that no longer holds) inserts nothing (an empty transaction
   * commits), and the batch is decided again on the heads read under the lock.
   */
  async #appendBatch(client: PoolClient, target: AppendTarget, batch: readonly PendingAppend[]): Promise<Committed> {
    await preparedOn(client, target.log);
    const assumedHeads = this.#assumedHeads(batch);
    const remembered = assumedHeads && decideAppends(batch, assumedHeads.heads);
    if (assumedHeads && remembered?.decisions.every((decision) => decision.ok)) {
      const committed = await insertBatch(client, target, this.origin, remembered, { opening: `BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(${target.lockKey}); `, assumed: assumedHeads.assumed });
      if (committed) return committed;
      for (const stream of assumedHeads.assumed.keys()) this.#heads.delete(stream);
    }
    return appendBatch(client, target, this.origin, batch);
  }

  /**
   * The heads a batch can be decided on without reading them, and the head each must still have
   * under the lock: the remembered ones (revision and hash); none for a stream whose first append
   * expects it to be new; a condition's revision for a stream the batch does not write. Undefined
   * when a head would be a guess bound to be refused: an append that expects anything (`any`, a
   * revision) of a stream this store did not write reads the heads under the lock instead.
   */
  #assumedHeads(batch: readonly PendingAppend[]): { heads: Map<string, StreamHead>; assumed: Map<string, AssumedHead> } | undefined {
    const heads = new Map<string, StreamHead>();
    const assumed = new Map<string, AssumedHead>();
    const written = new Set<string>();
    for (const { stream, expectedRevision } of batch) {
      if (written.has(stream)) continue;
      written.add(stream);
      const head = this.#heads.get(stream);
      if (head) heads.set(stream, head);
      else if (expectedRevision !== 'no_stream') return undefined;
      assumed.set(stream, head ? assumedHead(head) : { revision: -1n, hash: '' });
    }
    for (const { stream, revision } of batch.flatMap((pending) => pending.unchanged ?? [])) {
      if (assumed.has(stream)) continue;
      const head = this.#heads.get(stream);
      if (head) heads.set(stream, head);
      else if (revision !== 'no_stream') heads.set(stream, { revision, hash: '' });
      assumed.set(stream, head ? assumedHead(head) : { revision: revision === 'no_stream' ? -1n : revision, hash: '' });
    }
    return { heads, assumed };
  }

  #remember(heads: ReadonlyMap<string, StreamHead>): void {
    for (const [stream, head] of heads) {
      // Re-inserted: the Map's order is the recency order.
      this.#heads.delete(stream);
      this.#heads.set(stream, head);
    }
    while (this.#heads.size > REMEMBERED_HEADS) this.#heads.delete(this.#heads.keys().next().value!);
  }

  /**
   * A UNIQUE constraint refused a row, so the whole batch rolled back: commit its appends one by
   * one, so that only the append at fault fails. Alone, a duplicate event id fails that append
   * (as in SQLite); a revision someone else took is the conflict it is, with the actual revision.
   */
  async #failed(batch: PendingAppend[], error: unknown): Promise<void> {
    const violation = uniqueViolation(error);
    if (violation && batch.length > 1) {
      for (const pending of batch) await this.#commit([pending]);
      return;
    }
    const pending = batch[0];
    if (violation?.constraint === uniqueRevisionConstraint && pending) {
      const actual = await this.#currentRevision(pending.stream).catch(() => undefined);
      if (actual !== undefined) return pending.reject(new WrongExpectedRevisionError(pending.stream, pending.expectedRevision, actual));
    }
    for (const failed of batch) failed.reject(error);
  }

  async #currentRevision(stream: string): Promise<ActualRevision> {
    const { log } = await this.target();
    const { rows } = await this.pool.query<{ revision: string | null }>(
      `SELECT max(revision) AS revision FROM ${log.events} WHERE stream = $1`, [stream],
    );
    const revision = rows[0]?.revision;
    return revision === null || revision === undefined ? 'no_stream' : BigInt(revision);
  }
}

/** The rows of one batch, column by column (one array parameter each). */
export class Rows {
  readonly ids: string[] = [];
  readonly streams: string[] = [];
  readonly categories: string[] = [];
  readonly revisions: bigint[] = [];
  readonly types: string[] = [];
  readonly data: string[] = [];
  readonly metadata: string[] = [];

  get count(): number {
    return this.ids.length;
  }

  add(stream: string, revision: bigint, event: NewEvent): void {
    this.ids.push(event.id ?? randomUUID());
    this.streams.push(stream);
    this.categories.push(categoryOf(stream));
    this.revisions.push(revision);
    this.types.push(event.type);
    this.data.push(JSON.stringify(event.data ?? null));
    this.metadata.push(JSON.stringify(event.metadata ?? {}));
  }

  /** The rows as committed at positions `first`… and time `recordedAt`: what a read would return. */
  appendedAt(first: bigint, recordedAt: Date): AppendedEvent[] {
    const recordedAtMs = recordedAt.getTime();
    return this.ids.map((id, i) => ({
      stream: this.streams[i]!, category: this.categories[i]!, type: this.types[i]!, revision: this.revisions[i]!,
      position: first + BigInt(i), data: this.data[i]!, metadata: this.metadata[i]!, recordedAtMs, id,
    }));
  }
}

/**
 * Decides a batch's appends in order against the streams' current heads: an earlier append of the
 * batch moves the revision a later one expects and the hash it chains on. Accepted events become
 * rows; nothing is written.
 */
export function decideAppends(
  batch: readonly AppendRequest[], current: ReadonlyMap<string, StreamHead>,
): DecidedBatch {
  const heads = new Map<string, StreamHead>();
  const rows = new Rows();
  const decisions = batch.map((pending): Decision => {
    for (const condition of pending.unchanged ?? []) {
      const at: ActualRevision = (heads.get(condition.stream) ?? current.get(condition.stream))?.revision ?? 'no_stream';
      if (!revisionMatches(condition.revision, at)) return { ok: false, error: new WrongExpectedRevisionError(condition.stream, condition.revision, at) };
    }
    const head = heads.get(pending.stream) ?? current.get(pending.stream);
    const actual: ActualRevision = head?.revision ?? 'no_stream';
    if (!revisionMatches(pending.expectedRevision, actual)) {
      return { ok: false, error: new WrongExpectedRevisionError(pending.stream, pending.expectedRevision, actual) };
    }
    let revision = actual === 'no_stream' ? -1n : actual;
    const { chained, head: hash } = chainEvents(head?.hash ?? GENESIS_HASH, pending.events);
    for (const event of chained) rows.add(pending.stream, (revision += 1n), event);
    heads.set(pending.stream, { revision, hash });
    return { ok: true, nextRevision: revision, lastRow: rows.count - 1 };
  });
  return { decisions, rows, heads };
}

/** A batch's appends decided, the rows to insert, and the heads of the streams its accepted appends wrote. */
export interface DecidedBatch {
  decisions: Decision[];
  rows: Rows;
  heads: Map<string, StreamHead>;
}

/** A committed batch: each append's decision, the events as stored, and the heads it left. */
interface Committed {
  decisions: Decision[];
  appended: AppendedEvent[];
  heads: ReadonlyMap<string, StreamHead>;
}

/**
 * One transaction in two round trips: take the log's append lock and read the batch's streams'
 * heads; decide; then insert the accepted rows at positions drawn in order, announce their
 * categories, and commit.
 */
async function appendBatch(client: PoolClient, target: AppendTarget, origin: string, batch: readonly PendingAppend[]): Promise<Committed> {
  const streams = [...new Set(batch.flatMap((pending) => [pending.stream, ...(pending.unchanged ?? []).map((condition) => condition.stream)]))];
  // READ COMMITTED whatever the server's default: each statement then reads after the lock was granted.
  const locked = await simpleQuery<HeadRow>(client,
    `BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(${target.lockKey}); EXECUTE ${STREAM_HEADS}(${textArray(client, streams)})`);
  const current = new Map(locked.at(-1)!.rows.map((row) => [row.stream, { revision: BigInt(row.revision), hash: chainHeadFrom(row.hash) }] as const));
  const decided = decideAppends(batch, current);
  if (decided.rows.count === 0) {
    await client.query('ROLLBACK');
    // The heads as read are the streams' own: remembered for the next batch.
    return { decisions: decided.decisions, appended: [], heads: current };
  }
  const committed = await insertBatch(client, target, origin, { ...decided, heads: new Map([...current, ...decided.heads]) }, { opening: '', assumed: new Map() });
  return committed!;
}

/**
 * Inserts a decided batch, announces it and commits, in one round trip. `opening` starts the
 * transaction and takes the append lock when they were not taken yet; `assumed`: the head each
 * stream must still have under the lock, else nothing is inserted and undefined is returned.
 */
async function insertBatch(
  client: PoolClient, target: AppendTarget, origin: string, decided: DecidedBatch,
  { opening, assumed }: { opening: string; assumed: ReadonlyMap<string, AssumedHead> },
): Promise<Committed | undefined> {
  const { decisions, rows, heads } = decided;
  const payload = announcementPayload({ origin, categories: [...new Set(rows.categories)] });
  // The insert's NOTIFY is delivered at commit, never before: a woken subscriber always finds the events.
  const results = await simpleQuery<{ first: string; recorded_at: Date }>(client, `${opening}EXECUTE ${INSERT_EVENTS}(${rows.count}, ${[
    textArray(client, rows.ids), textArray(client, rows.streams), textArray(client, rows.categories),
    `ARRAY[${rows.revisions.join(',')}]::bigint[]`, textArray(client, rows.types), textArray(client, rows.data), textArray(client, rows.metadata),
    textArray(client, [...assumed.keys()]), `ARRAY[${[...assumed.values()].map((head) => head.revision).join(',')}]::bigint[]`, client.escapeLiteral(payload),
    textArray(client, [...assumed.values()].map((head) => head.hash)),
  ].join(', ')}); COMMIT`);
  const inserted = results.find((result) => result.fields.some((field) => field.name === 'first'))!.rows[0];
  // A head moved: nothing was inserted, no position drawn, nobody notified; an empty transaction committed.
  if (inserted === undefined) return undefined;
  return { decisions, appended: rows.appendedAt(BigInt(inserted.first), inserted.recorded_at), heads };
}

interface HeadRow {
  stream: string;
  revision: string;
  hash: string | null;
}

const STREAM_HEADS = 'sb_stream_heads';
// Named anew when its text changes: a pooled server connection may hold the old one (42P05 is taken as "prepared").
const INSERT_EVENTS = 'sb_insert_events_on_heads';

/** Connections whose statements are prepared (per log: a pool serves one store). */
const preparedConnections = new WeakSet<PoolClient>();

/**
 * The statements that run under the append lock, prepared once per connection (with SQL's
 * PREPARE, so that they can run inside a multi-statement query): they skip parsing and planning
 * there, about a third of the server's CPU per append.
 * - Stream heads: one last row per stream, not GROUP BY: each is a single backward step on the
 *   (stream, revision) index, however long the stream, and its metadata holds the chain head.
 * - Insert: the rows at consecutive positions, returning the first and the rows' `recorded_at` (the
 *   statement's time, the column's default). Under the append lock no one else draws from the
 *   sequence, so advancing it by the row count reserves exactly that range. Only when every
 *   assumed head ($9 streams, $10 revisions, $12 hashes of their last events, '' unchecked: one
 *   backward index step each) is the stream's: else no row, no position. It also sends the
 *   commit's NOTIFY ($11, the payload), only when it inserted.
 */
async function preparedOn(client: PoolClient, log: EventLog): Promise<void> {
  if (preparedConnections.has(client)) return;
  const statements: [name: string, sql: string][] = [
    [STREAM_HEADS, `(text[]) AS
      SELECT s.stream, last.revision, last.metadata->>'hash' AS hash
      FROM unnest($1) AS s(stream)
      CROSS JOIN LATERAL (
        SELECT e.revision, e.metadata FROM ${log.events} e WHERE e.stream = s.stream ORDER BY e.revision DESC LIMIT 1
      ) AS last`],
    [INSERT_EVENTS, `(bigint, text[], text[], text[], bigint[], text[], text[], text[], text[], bigint[], text, text[]) AS
      WITH moved AS MATERIALIZED (
        SELECT 1 FROM unnest($9, $10, $12) AS h(stream, revision, hash)
        LEFT JOIN LATERAL (
          SELECT e.revision, e.metadata FROM ${log.events} e WHERE e.stream = h.stream ORDER BY e.revision DESC LIMIT 1
        ) AS last ON true
        WHERE coalesce(last.revision, -1) <> h.revision OR (h.hash <> '' AND (last.metadata->>'hash') IS DISTINCT FROM h.hash)
        LIMIT 1
      ), reserved AS MATERIALIZED (
        SELECT setval('${log.positions}', nextval('${log.positions}') + $1 - 1) - $1 + 1 AS first WHERE NOT EXISTS (SELECT 1 FROM moved)
      ), inserted AS (
        INSERT INTO ${log.events} (position, id, stream, category, revision, type, data, metadata)
        SELECT reserved.first + e.ordinality - 1, e.id, e.stream, e.category, e.revision, e.type, e.data::json, e.metadata::json
        FROM reserved, unnest($2, $3, $4, $5, $6, $7, $8)
          WITH ORDINALITY AS e (id, stream, category, revision, type, data, metadata, ordinality)
      ), notified AS MATERIALIZED (
        SELECT pg_notify('${log.channel}', $11) FROM reserved
      )
      SELECT first, statement_timestamp() AS recorded_at FROM reserved, notified`],
  ];
  // One at a time: PREPARE is not undone by a rollback, so one that succeeded before a failure is
  // still there at the next try (the same statement: a pool serves one log).
  for (const [name, sql] of statements) {
    await client.query(`PREPARE ${name}${sql}`).catch((error: unknown) => {
      if ((error as { code?: unknown }).code !== DUPLICATE_PREPARED_STATEMENT) throw error;
    });
  }
  preparedConnections.add(client);
}

/** SQLSTATE 42P05. */
const DUPLICATE_PREPARED_STATEMENT = '42P05';

/** Statements sent as one simple query (one round trip): the result of each, in order. */
async function simpleQuery<R extends object>(client: PoolClient, text: string): Promise<QueryResult<R>[]> {
  const results = (await client.query(text)) as unknown as QueryResult<R>[] | QueryResult<R>;
  return Array.isArray(results) ? results : [results];
}

/**
 * A head an insert checks under the lock: its revision (-1: no stream), and the hash of its last
 * event ('': not checked; a stream known by revision alone, or whose events carry no hash).
 */
interface AssumedHead {
  revision: bigint;
  hash: string;
}

/**
 * A remembered head as checked: the hash too, so that a stream remade elsewhere up to the same
 * revision (a restored database written again) is not chained on as if it were the one remembered.
 */
function assumedHead(head: StreamHead): AssumedHead {
  return { revision: head.revision, hash: head.hash === GENESIS_HASH ? '' : head.hash };
}

/** A text[] literal, each element quoted by node-postgres (whatever `standard_conforming_strings` says). */
function textArray(client: PoolClient, values: readonly string[]): string {
  return `ARRAY[${values.map((value) => client.escapeLiteral(value)).join(',')}]::text[]`;
}
