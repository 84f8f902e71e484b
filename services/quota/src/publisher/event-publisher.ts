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
  /** How often a non-holder checks whether the holder is gone. */
  pollMs?: number;
}

/**
 * Publishes every quota event on `sb.v1.evt.<category>.<Event>` (PublishedEvent), including those
 * written by another process on the same store (the CLI, another replica). Woken by the
 * projections' afterApply; reads from its own recorded position, so a restart neither floods the
 * bus with old events nor loses those written while it was down. At least once: subscribers
 * deduplicate by `eventId` (a takeover after a crash may repeat the last few).
 */
export class EventPublisher {
  private position = 0n;
  private running: Promise<void> | undefined;
  private again = false;
  private started = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: EventPublisherOptions) {}

  /** `head`: the last position the read models had applied at start (the store's head then). */
  start(head: bigint): void {
    this.options.lease?.initialize(head);
    this.position = head;
    this.started = true;
    this.timer = setInterval(() => this.wake(), this.options.pollMs ?? 500);
    this.timer.unref();
    this.wake();
  }

  /** Something was appended: publish it soon (coalesces bursts into one pass). */
  wake(): void {
    if (!this.started) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.pump().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  async stop(): Promise<void> {
    this.started = false;
    clearInterval(this.timer);
    this.again = false;
    await this.running;
    this.options.lease?.release();
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        const from = this.options.lease ? this.options.lease.acquire() : this.position;
        if (from === undefined) return;
        const { events: page, complete } = await this.pageAfter(from);
        if (page.length === 0) return;
        for (const event of page) await this.publish(event);
        const last = page.at(-1)!.position;
        this.position = last;
        if (this.options.lease && !this.options.lease.advance(last)) return;
        // Nothing was left out of this page: anything appended since wakes another pass (and
        // the poll timer covers other processes), so no second read just to find it empty.
        if (complete) return;
      }
    } catch (error) {
      // Bus down or store busy: the recorded position stays, the next wake retries.
      this.options.logger.warn({ err: error }, 'publishing quota events failed; will retry');
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
