import { EventMetadata, STREAM_CATEGORY, subjectForEvent } from '@switchboard/contracts';
import type { DomainEventType, PublishedEvent } from '@switchboard/contracts';
import type { Bus } from '@switchboard/bus';
import type { EventStore, RecordedEvent } from '@switchboard/eventstore';
import { toRawEvent } from '@switchboard/service-kit';
import type { Logger } from '@switchboard/telemetry';
import type { PublicationLease } from './publication-lease.js';

const categories = [STREAM_CATEGORY.account, STREAM_CATEGORY.usage];
const pageSize = 500;

export interface EventPublisherOptions {
  bus: Bus;
  store: EventStore;
  logger: Logger;
  /** Shared by replicas on one SQLite store; undefined (KurrentDB) = every replica publishes. */
  lease: PublicationLease | undefined;
  /** How long after a failed pass (bus down, store busy) the publisher tries again. */
  retryMs?: number;
}

/** Why a pass ended: the next pass is owed to a wake, or to a timer (`retry`, or the lease's `held-elsewhere`). */
type PassEnd = 'done' | 'retry' | 'held-elsewhere';

/**
 * Publishes every quota event on `sb.v1.evt.<category>.<Event>` (PublishedEvent), including those
 * written by another process on the same store (the CLI, another replica). Woken by the
 * projections' afterApply, which every append reaches (another process's too: the store's
 * subscriptions see its commits); reads from its own recorded position, so a restart neither
 * floods the bus with old events nor loses those written while it was down. At least once:
 * subscribers deduplicate by `eventId` (a takeover after a crash may repeat the last few).
 * No timer runs while it is idle: only a failed pass, or a lease another replica holds (checked
 * again once it could have expired), schedules the next look.
 */
export class EventPublisher {
  private position = 0n;
  private running: Promise<void> | undefined;
  private again = false;
  private started = false;
  /** The next pass a timer owes (after a failure, or to see whether the lease's holder is gone). */
  private timer: NodeJS.Timeout | undefined;

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
      } else if (end !== 'done' && this.started) this.wakeIn(end === 'retry' ? (this.options.retryMs ?? 500) : this.options.lease!.leaseMs);
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
    this.options.lease?.release();
  }

  private async pump(): Promise<PassEnd> {
    try {
      for (;;) {
        const from = this.options.lease ? this.options.lease.acquire() : this.position;
        // Another replica publishes; if it crashed, its lease runs out and this one takes over.
        if (from === undefined) return 'held-elsewhere';
        const { events: page, complete } = await this.pageAfter(from);
        if (page.length === 0) return 'done';
        for (const event of page) await this.publish(event);
        const last = page.at(-1)!.position;
        this.position = last;
        if (this.options.lease && !this.options.lease.advance(last)) return 'held-elsewhere';
        // Nothing was left out of this page: anything appended since (by any process) wakes
        // another pass, so no second read just to find it empty.
        if (complete) return 'done';
      }
    } catch (error) {
      // Bus down or store busy: the recorded position stays, and a timer tries again.
      this.options.logger.warn({ err: error }, 'publishing quota events failed; will retry');
      return 'retry';
    }
  }

  private async publish(event: RecordedEvent): Promise<void> {
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
   * The next events of both categories in position order (cut where a full page ends);
   * `complete` when no page was full, so nothing stored before the read was left out.
   */
  private async pageAfter(from: bigint): Promise<{ events: RecordedEvent[]; complete: boolean }> {
    const pages = await Promise.all(
      categories.map((category) => this.options.store.readAll({ category, fromPosition: from + 1n, maxCount: pageSize })),
    );
    const cutoff = pages.filter((p) => p.length === pageSize).map((p) => p.at(-1)!.position);
    const limit = cutoff.length === 0 ? undefined : cutoff.reduce((a, b) => (a < b ? a : b));
    const events = pages.flat().filter((e) => limit === undefined || e.position <= limit).sort((a, b) => (a.position < b.position ? -1 : 1));
    return { events, complete: limit === undefined };
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
