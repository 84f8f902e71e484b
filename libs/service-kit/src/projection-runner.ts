import type { DatabaseSync } from 'node:sqlite';
import type { EventStore, RecordedEvent, Subscription } from '@switchboard/eventstore';
import { SqliteCheckpointStore, inImmediateTransactionWhenFree } from '@switchboard/eventstore';
import { processMetrics, runInLinkedSpan } from '@switchboard/telemetry';
import { raiseForCatchUp } from './catch-up-tuning.js';
import { traceparentsOf } from './stored-events.js';

/** Beyond this many unapplied events the lag gauge stops counting (a scrape must stay cheap). */
export const LAG_COUNT_CAP = 10_000;
/**
 * While catching up with the events that existed at start, pages are applied together up to this
 * many events per transaction: fewer commits (each rewrites the pages it touched), and more of a
 * row's later facts meet it in memory before it is written.
 */
export const CATCH_UP_BATCH_EVENTS = 10_000;

/**
 * A read model kept in a SQLite database. `apply` is synchronous and runs inside the same
 * transaction that stores the checkpoint (one per batch of events the store had ready), so a
 * crash never applies an event twice or skips one.
 */
export interface Projection {
  /** Checkpoint name; change it to rebuild the read model from zero. */
  readonly name: string;
  /** The event category it follows (`session`, `message`, `account`, …). */
  readonly category: string;
  apply(event: RecordedEvent): void;
  /**
   * Writes what `apply` gathered in memory from the batch (a row its events create and then change
   * is written once), before the batch's checkpoint in the same transaction; called once per batch.
   * A batch that fails is rolled back and stops the runner: build a new projection to try again.
   */
  flush?(): void;
}

export interface ProjectionRunnerOptions {
  /** Called with each batch of events after it is applied (published facts, caches); errors are logged. */
  afterApply?: (events: readonly RecordedEvent[]) => void | Promise<void>;
  /**
   * The projection stopped on this event, or `afterApply` failed on a batch beginning with it;
   * no event when the subscription itself failed or ended. `projection`: the name of the one that
   * could not apply it (of several sharing the runner).
   */
  onError?: (error: unknown, event: RecordedEvent | undefined, projection?: string) => void;
  /** False: no `switchboard_projection_lag_events` (a rebuild's new generation is not what the service reads). */
  reportLag?: boolean;
  /**
   * Events applied in one transaction at most while catching up (default CATCH_UP_BATCH_EVENTS;
   * whole pages: a page larger than this is one batch). Live batches are as the store has them.
   */
  catchUpBatchEvents?: number;
}

/**
 * Subscribes to a category from the stored checkpoint, applies each batch of events (pages up to
 * `catchUpBatchEvents` while catching up) and its checkpoint atomically, one transaction per
 * batch, and turns live. Several read models of one category in one database (messaging's status
 * and history) share a runner: each event is read once and every read model applies it in the same
 * transaction, each with its own checkpoint (so each can be rebuilt alone); one that cannot apply
 * an event stops them all, as it stopped the service's readiness before.
 * `caughtUp()` tells `/readyz` once the category's last event at start (one query) is applied;
 * `waitForPosition` lets a command handler answer only once its own write is visible in the read model.
 * The runner works on whichever database it is given (a service's read models, or a fresh one to rebuild into).
 */
export class ProjectionRunner {
  private readonly checkpoints: SqliteCheckpointStore;
  private subscription: Subscription | undefined;
  private loop: Promise<void> | undefined;
  private applied: bigint = -1n;
  private target: bigint = -1n;
  private waiters: { position: bigint; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private failure: unknown;
  /** The event being applied and by which projection, named when applying it fails. */
  private applying: RecordedEvent | undefined;
  private applyingIn: string | undefined;
  private removeLagSource: (() => void) | undefined;
  /** Gives back the connection's catch-up settings (see `raiseForCatchUp`) once caught up or stopped. */
  private endCatchUp: (() => void) | undefined;
  private stopping = false;

  private readonly projections: readonly Projection[];
  private readonly category: string;
  /** What spans and errors call it: the projections' names. */
  private readonly name: string;

  constructor(
    private readonly store: EventStore,
    private readonly db: DatabaseSync,
    projections: Projection | readonly Projection[],
    private readonly options: ProjectionRunnerOptions = {},
  ) {
    this.projections = Array.isArray(projections) ? projections : [projections as Projection];
    const categories = new Set(this.projections.map((projection) => projection.category));
    if (this.projections.length === 0 || categories.size !== 1) throw new TypeError('a projection runner follows one category: give it projections of one category');
    this.category = this.projections[0]!.category;
    this.name = this.projections.map((projection) => projection.name).join('+');
    this.checkpoints = SqliteCheckpointStore.fromDatabase(db);
  }

  async start(): Promise<void> {
    // From the projection furthest behind; the others skip what they applied already.
    this.applied = this.projections.map((projection) => this.storedCheckpoint(projection)).reduce((a, b) => (a < b ? a : b));
    this.target = (await this.store.lastPosition({ category: this.category })) ?? -1n;
    if (this.target > this.applied) this.endCatchUp = raiseForCatchUp(this.db);
    this.subscription = this.store.subscribe({ category: this.category, from: this.applied < 0n ? 'start' : this.applied });
    this.loop = this.run(this.subscription);
    if (this.options.reportLag === false) return;
    this.removeLagSource = processMetrics().projectionLag.addSource(async () => {
      const lag = await this.lag();
      return this.projections.map((projection) => [{ projection: projection.name }, lag]);
    });
  }

  /** The position its read model has applied up to (-1 for none). */
  private storedCheckpoint(projection: Projection): bigint {
    const from = this.checkpoints.loadSync(projection.name);
    return from === 'start' ? -1n : from;
  }

  /**
   * Events of the category appended after the last applied one (up to `LAG_COUNT_CAP`), read
   * from the store: the `switchboard_projection_lag_events` an SRE watches.
   */
  async lag(): Promise<number> {
    const after = this.applied < 0n ? 'start' : this.applied;
    return this.store.countAfter(after, { category: this.category, limit: LAG_COUNT_CAP });
  }

  /** True once every event that existed at start has been applied. */
  caughtUp(): boolean {
    return this.failure === undefined && this.applied >= this.target;
  }

  /** The error that stopped the projection: an event it could not apply is never skipped. */
  failed(): unknown {
    return this.failure;
  }

  /** Whether the event at `position` (or later) is applied. */
  hasApplied(position: bigint): boolean {
    return this.applied >= position;
  }

  /** Resolves once the event at `position` (or later) is applied; rejects if the projection stopped. */
  waitForPosition(position: bigint): Promise<void> {
    if (this.applied >= position) return Promise.resolve();
    if (this.failure !== undefined) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => this.waiters.push({ position, resolve, reject }));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.removeLagSource?.();
    await this.subscription?.close();
    await this.loop;
    this.endCatchUpTuning();
  }

  private endCatchUpTuning(): void {
    this.endCatchUp?.();
    this.endCatchUp = undefined;
  }

  private async run(subscription: Subscription): Promise<void> {
    const catchUpBatch = this.options.catchUpBatchEvents ?? CATCH_UP_BATCH_EVENTS;
    let gathered: RecordedEvent[] = [];
    try {
      for await (const page of subscription) {
        // A page is never split: one that would take the batch past its size goes to the next.
        if (gathered.length > 0 && gathered.length + page.length > catchUpBatch) {
          await this.project(gathered);
          gathered = [];
        }
        for (const event of page) gathered.push(event);
        // Before the head at start, the next page is already stored: gather it into this batch.
        if (gathered.length < catchUpBatch && page.at(-1)!.position < this.target) continue;
        await this.project(gathered);
        gathered = [];
      }
      // Only stop() ends a subscription; one that ends by itself (a KurrentDB stream closed by the
      // server) would otherwise leave the read model behind, its waiters waiting, and nobody told.
      if (!this.stopping) throw new Error(`the ${this.category} subscription of projection ${this.name} ended`);
    } catch (error) {
      this.failure = error;
      this.endCatchUpTuning();
      for (const waiter of this.waiters.splice(0)) waiter.reject(error);
      this.options.onError?.(error, this.applying, this.applyingIn);
    }
  }

  private async project(batch: readonly RecordedEvent[]): Promise<void> {
    // Projecting happens after the requests that appended the events: a span of its own,
    // linked to each one that wrote them (the traceparents in their metadata).
    await runInLinkedSpan(`project ${this.name}`, traceparentsOf(batch), async () => {
      await this.applyWithCheckpoint(batch);
      if (this.applied >= this.target) this.endCatchUpTuning();
      this.release();
      await this.afterApply(batch);
    });
  }

  /**
   * Events at or before a read model's stored checkpoint are skipped by it: another writer applied
   * them (a rebuild swapped in a read model built further than this runner got), and so never
   * twice. The write lock is waited for off the event loop (a rebuild's swap holds it while reads
   * go on).
   */
  private async applyWithCheckpoint(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch.at(-1)!.position;
    const applied = await inImmediateTransactionWhenFree(this.db, () => {
      // How far every read model has got after this batch: the least of their checkpoints.
      let applied: bigint | undefined;
      for (const projection of this.projections) {
        const stored = this.storedCheckpoint(projection);
        if (stored >= last) {
          if (applied === undefined || stored < applied) applied = stored;
          continue;
        }
        applied = last;
        this.applyingIn = projection.name;
        for (const event of batch) {
          if (event.position <= stored) continue;
          this.applying = event;
          projection.apply(event);
        }
        // What fails while writing the batch's gathered rows is reported on its last event.
        projection.flush?.();
        this.checkpoints.saveSync(projection.name, last);
      }
      return applied!;
    });
    if (applied > this.applied) this.applied = applied;
    this.applying = undefined;
    this.applyingIn = undefined;
  }

  private release(): void {
    const ready = this.waiters.filter((w) => w.position <= this.applied);
    this.waiters = this.waiters.filter((w) => w.position > this.applied);
    for (const waiter of ready) waiter.resolve();
  }

  private async afterApply(batch: readonly RecordedEvent[]): Promise<void> {
    if (!this.options.afterApply) return;
    try {
      await this.options.afterApply(batch);
    } catch (error) {
      this.options.onError?.(error, batch[0]!);
    }
  }
}
