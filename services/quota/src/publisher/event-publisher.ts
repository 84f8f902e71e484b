import { ACCOUNT_EVENTS, EventMetadata, STREAM_CATEGORY, USAGE_EVENTS, subjectForEvent } from '@switchboard/contracts';
import type { DomainEventType, PublishedEvent } from '@switchboard/contracts';
import type { Bus } from '@switchboard/bus';
import { categoryOf } from '@switchboard/eventstore';
import type { EventStore, LogTail, RecordedEvent } from '@switchboard/eventstore';
import { toRawEvent } from '@switchboard/service-kit';
import type { Logger } from '@switchboard/telemetry';
import type { PublicationLease } from './publication-lease.js';

/** The categories published, each with the subjects its events go out on. */
const categories = [
  { category: STREAM_CATEGORY.account, subjects: ACCOUNT_EVENTS.map((e) => subjectForEvent(e.shape.type.value)) },
  { category: STREAM_CATEGORY.usage, subjects: USAGE_EVENTS.map((e) => subjectForEvent(e.shape.type.value)) },
];
const PUBLISHED = new Set<string>(categories.map(({ category }) => category));
const pageSize = 500;

export interface EventPublisherOptions {
  bus: Bus;
  store: EventStore;
  logger: Logger;
  /** Shared by replicas on one SQLite store; undefined (KurrentDB) = every replica publishes. */
  lease: PublicationLease | undefined;
  /** How long after a failed pass (bus down, store busy) the publisher tries again. */
  retryMs?: number;
  /** The look it takes on its own after a pass that left nothing to do. */
  safetyPassMs?: number;
}

/**
 * The look taken without a wake, once a pass left nothing to do: the wake comes from the quota
 * read models, and a read model that stopped on an event it could not apply wakes nobody again.
 */
export const SAFETY_PASS_MS = 30_000;
/** Looked again this long after another replica's lease runs out, so that it has run out. */
const LEASE_MARGIN_MS = 50;

/** How a pass ended, and when the next look is owed without a wake. */
export type PassEnd = { kind: 'done' } | { kind: 'retry' } | { kind: 'held-elsewhere'; untilMs: number };

/**
 * Publishes every quota event on `sb.v1.evt.<category>.<Event>` (PublishedEvent), including those
 * written by another process on the same store (the CLI, another replica). Woken by the
 * projections' afterApply, which every append reaches (another process's too: the store's
 * subscriptions see its commits). On SQLite it reads from the position the publication lease
 * records, so a restart neither floods the bus with old events nor loses those written while no
 * replica ran; without a lease (KurrentDB, PostgreSQL) every replica publishes from the read
 * models' head at its start. At least once: subscribers deduplicate by `eventId` (a takeover after
 * a crash may repeat the last few). Idle, it looks on its own only every SAFETY_PASS_MS; a failed
 * pass is tried again in `retryMs`, and a lease another replica holds is looked at once it ran out.
 */
export class EventPublisher {
  private position = 0n;
  /**
   * How far the last pass with nothing to publish reached (only events nobody could hear up to
   * there): the next pass reads after it, and it is recorded with the next publish or at stop.
   */
  private passedOver = -1n;
  private running: Promise<void> | undefined;
  private again = false;
  private started = false;
  /** The next pass a timer owes (after a failure, or to see whether the lease's holder is gone). */
  private timer: NodeJS.Timeout | undefined;
  /** The log's tail (key undefined) and each category's: what this process appended is handed over, not read back. */
  private readonly tails = new Map<string | undefined, LogTail>();

  constructor(private readonly options: EventPublisherOptions) {}

  /** `head`: the last position the read models had applied at start (the store's head then). */
  start(head: bigint): void {
    this.options.lease?.initialize(head);
    this.position = head;
    this.started = true;
    this.wake();
  }

  /** Something was appended: publish it soon (coalesces bursts into one pass). */
  wake(): void {
    if (!this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.running = this.pump().then((end) => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      } else if (this.started) this.wakeIn(nextLookInMs(end, this.options));
    });
  }

  private wakeIn(ms: number): void {
    this.timer = setTimeout(() => this.wake(), ms);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    this.again = false;
    await this.running;
    if (this.passedOver >= 0n) this.options.lease?.advance(this.passedOver);
    this.options.lease?.release();
  }

  private async pump(): Promise<PassEnd> {
    try {
      for (;;) {
        const held = this.options.lease ? this.options.lease.acquire() : this.position;
        // Another replica publishes; if it crashed, its lease runs out and this one takes over.
        if (held === undefined) return { kind: 'held-elsewhere', untilMs: this.options.lease!.heldElsewhereUntilMs };
        const from = maxOf(held, this.passedOver);
        const { events: page, complete, passedOverUpTo } = await this.pageAfter(from);
        // What nobody could hear counts as published once nothing heard before it is left.
        const reach = maxOf(page.at(-1)?.position ?? from, complete && passedOverUpTo !== undefined ? passedOverUpTo : from);
        if (page.length === 0) {
          // Not recorded now: a write per pass would cost what not reading saves.
          this.passedOver = reach;
          return { kind: 'done' };
        }
        for (const event of page) await this.publish(event);
        this.position = reach;
        if (this.options.lease && !this.options.lease.advance(reach)) return { kind: 'held-elsewhere', untilMs: Date.now() + this.options.lease.leaseMs };
        // Nothing was left out of this page: anything appended since (by any process) wakes
        // another pass, so no second read just to find it empty.
        if (complete) return { kind: 'done' };
      }
    } catch (error) {
      // Bus down or store busy: the recorded position stays, and a timer tries again.
      this.options.logger.warn({ err: error }, 'publishing quota events failed; will retry');
      return { kind: 'retry' };
    }
  }

  private async publish(event: RecordedEvent): Promise<void> {
    // Read with the log, not quota's: passed over, yet counted as read (a page of them moves on).
    if (!PUBLISHED.has(categoryOf(event.stream))) return;
    const raw = toRawEvent(event);
    const metadata = EventMetadata.safeParse(event.metadata);
    if (!metadata.success) {
      this.options.logger.error({ stream: event.stream, type: event.type }, 'event without valid metadata not published');
      return;
    }
    const body: PublishedEvent = {
      eventId: event.id, stream: event.stream, revision: Number(event.revision),
      type: raw.type, version: raw.version, data: publicData(raw.data), metadata: metadata.data,
    };
    await this.options.bus.publish(subjectForEvent(raw.type as DomainEventType), body);
  }

  /**
   * The next events of the heard categories in position order (cut where a full page ends);
   * `complete` when no page was full, so nothing stored before the read was left out. With every
   * category heard, the log is read once instead of once per category (one query a pass on
   * PostgreSQL, not two); an event of another category there is passed over by `publish`.
   */
  private async pageAfter(from: bigint): Promise<{ events: readonly RecordedEvent[]; complete: boolean; passedOverUpTo: bigint | undefined }> {
    const { heard, passedOverUpTo } = await this.heardCategories();
    if (heard.length === categories.length) {
      const page = await this.tailOf(undefined).readAfter(from, pageSize);
      return { events: page, complete: page.length < pageSize, passedOverUpTo };
    }
    const pages = await Promise.all(heard.map((category) => this.tailOf(category).readAfter(from, pageSize, passedOverUpTo)));
    const cutoff = pages.filter((p) => p.length === pageSize).map((p) => p.at(-1)!.position);
    const limit = cutoff.length === 0 ? undefined : cutoff.reduce((a, b) => (a < b ? a : b));
    const events = pages.flat().filter((e) => limit === undefined || e.position <= limit).sort((a, b) => (a.position < b.position ? -1 : 1));
    return { events, complete: limit === undefined, passedOverUpTo };
  }

  private tailOf(category: string | undefined): LogTail {
    let tail = this.tails.get(category);
    if (tail === undefined) this.tails.set(category, (tail = this.options.store.tail(category)));
    return tail;
  }

  /**
   * The categories someone could hear now. One nobody can hear is not read at all: in one process
   * (the in-process bus) no service listens to usage events, and reading and publishing every
   * send's reservation took 2.5 % of an embedded send's CPU. Its events up to now are passed over,
   * as if published to nobody: a listener that comes later hears what is appended from then on.
   * `passedOverUpTo`: the store's head as read for that (undefined when every category is heard),
   * read before the heard categories are: every store makes positions visible in order, so an
   * event of theirs below it is in their pages.
   */
  private async heardCategories(): Promise<{ heard: string[]; passedOverUpTo: bigint | undefined }> {
    const heard = categories.filter(({ subjects }) => subjects.some((subject) => this.options.bus.mayBeHeard(subject))).map(({ category }) => category);
    if (heard.length === categories.length) return { heard, passedOverUpTo: undefined };
    return { heard, passedOverUpTo: (await this.options.store.lastPosition()) ?? -1n };
  }
}

const maxOf = (a: bigint, b: bigint): bigint => (a > b ? a : b);

/** When the publisher looks again on its own after a pass that ended as `end`. */
export function nextLookInMs(end: PassEnd, options: Pick<EventPublisherOptions, 'retryMs' | 'safetyPassMs'>, now = Date.now()): number {
  switch (end.kind) {
    case 'done':
      return options.safetyPassMs ?? SAFETY_PASS_MS;
    case 'retry':
      return options.retryMs ?? 500;
    case 'held-elsewhere':
      return Math.max(0, end.untilMs - now) + LEASE_MARGIN_MS;
  }
}

/**
 * What of an event's data may leave the service. A key hash is the lookup credential of
 * `quota.authenticate` (and operator-chosen keys can be short), so it stays in the store.
 */
export function publicData(data: unknown): unknown {
  if (typeof data !== 'object' || data === null || !('keyHash' in data)) return data;
  const { keyHash: _secret, ...rest } = data as Record<string, unknown>;
  return rest;
}
