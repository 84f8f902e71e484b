import type { DatabaseSync } from 'node:sqlite';
import { FEED_SOURCES, FeedSubjects, feedWakeSubject } from '@switchboard/contracts';
import type { FeedEntry, FeedSource } from '@switchboard/contracts';
import { callService } from '@switchboard/bus';
import type { Bus, BusSubscription } from '@switchboard/bus';
import type { Logger } from '@switchboard/telemetry';
import { inImmediateTransaction } from '@switchboard/eventstore';
import type { ContentErasures } from '../store/content-erasures.js';
import type { DeliveryStore } from '../store/deliveries.js';
import type { PublicFeed } from '../store/public-feed.js';
import type { WebhookQueries } from '../webhook/projection.js';

export interface IntakeOptions {
  bus: Bus;
  db: DatabaseSync;
  feed: PublicFeed;
  deliveries: DeliveryStore;
  webhooks: WebhookQueries;
  /** Contents erased before an event of theirs is recorded are recorded erased. */
  erasures?: ContentErasures;
  logger: Logger;
  /** How often each source is polled besides its wake-ups. */
  pollMs: number;
  pageSize?: number;
  /** After new events were recorded: the accounts they belong to and the webhooks that got work. */
  onRecorded(accounts: ReadonlySet<string>, webhooks: ReadonlySet<string>): void;
  now?: () => number;
}

/** A source's feed is asked no longer than this per page (a page is a few hundred small events). */
const FEED_TIMEOUT_MS = 5_000;
/**
 * Reads of one source start at most this often: under load a wake-up comes with nearly every
 * append, and gathering them into pages of many facts saves a bus trip and a transaction per fact,
 * for at most this much more latency on a webhook or the live stream.
 */
const GATHER_MS = 10;

/**
 * Pulls each source's public feed after its checkpoint. A page is recorded in ONE transaction:
 * each event once (by id), a delivery for each enabled webhook that takes it, and the checkpoint.
 * A kill before the commit loses nothing (the page is read again), a kill after it repeats nothing.
 */
export class Intake {
  private readonly running = new Map<FeedSource, Promise<void>>();
  private readonly again = new Set<FeedSource>();
  private readonly lastRead = new Map<FeedSource, number>();
  private readonly gathering = new Map<FeedSource, NodeJS.Timeout>();
  private readonly subscriptions: BusSubscription[] = [];
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly loadCheckpoint;
  private readonly saveCheckpoint;

  constructor(private readonly o: IntakeOptions) {
    this.loadCheckpoint = o.db.prepare('SELECT position FROM intake_checkpoints WHERE source = ?');
    this.saveCheckpoint = o.db.prepare('INSERT INTO intake_checkpoints (source, position) VALUES (?, ?) ON CONFLICT (source) DO UPDATE SET position = excluded.position');
  }

  async start(): Promise<void> {
    for (const source of FEED_SOURCES) {
      this.subscriptions.push(await this.o.bus.subscribe(feedWakeSubject(source), () => this.kick(source)));
    }
    this.timer = setInterval(() => FEED_SOURCES.forEach((s) => this.kick(s)), this.o.pollMs);
    this.timer.unref();
    FEED_SOURCES.forEach((s) => this.kick(s));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    for (const timer of this.gathering.values()) clearTimeout(timer);
    await Promise.all(this.subscriptions.map((s) => s.unsubscribe().catch(() => undefined)));
    await Promise.all(this.running.values());
  }

  /** Reads a source until it has nothing new; a kick during a read reads once more after it. */
  kick(source: FeedSource): void {
    if (this.stopped) return;
    if (this.running.has(source)) {
      this.again.add(source);
      return;
    }
    if (this.gathering.has(source)) return;
    const wait = (this.lastRead.get(source) ?? 0) + GATHER_MS - Date.now();
    if (wait > 0) {
      this.gathering.set(source, setTimeout(() => {
        this.gathering.delete(source);
        this.kick(source);
      }, wait));
      return;
    }
    this.lastRead.set(source, Date.now());
    const run = this.drain(source)
      .catch((error: unknown) => this.o.logger.debug({ err: error, source }, 'feed not read; next poll retries'))
      .finally(() => {
        this.running.delete(source);
        if (this.again.delete(source)) this.kick(source);
      });
    this.running.set(source, run);
  }

  /** The position read up to in `source` (null: nothing yet). */
  checkpoint(source: FeedSource): string | null {
    return (this.loadCheckpoint.get(source) as { position: string } | undefined)?.position ?? null;
  }

  /** Pages until one comes back short (a kick meanwhile reads again); an empty page writes nothing. */
  private async drain(source: FeedSource): Promise<void> {
    const limit = this.o.pageSize ?? 200;
    while (!this.stopped) {
      const after = this.checkpoint(source);
      const page = await callService(this.o.bus, FeedSubjects[source], { after, limit }, { timeoutMs: FEED_TIMEOUT_MS });
      if (page.head === null || page.head === after || this.stopped) return;
      this.record(source, page.events, page.head);
      if (page.events.length < limit) return;
    }
  }

  private record(source: FeedSource, entries: readonly FeedEntry[], head: string): void {
    const accounts = new Set<string>();
    const webhooks = new Set<string>();
    const now = (this.o.now ?? Date.now)();
    // A page is mostly a few accounts and event types: their subscribers are looked up once each.
    const subscribersOf = new Map<string, ReturnType<WebhookQueries['subscribers']>>();
    const subscribers = (accountId: string, type: string) => {
      const key = `${accountId} ${type}`;
      let found = subscribersOf.get(key);
      if (found === undefined) subscribersOf.set(key, (found = this.o.webhooks.subscribers(accountId, type)));
      return found;
    };
    inImmediateTransaction(this.o.db, () => {
      for (const { accountId, event: fetched } of entries) {
        const event = this.o.erasures ? this.o.erasures.scrub(accountId, fetched) : fetched;
        if (this.o.feed.record(accountId, event) === null) continue;
        accounts.add(accountId);
        const sessionKey = 'sessionId' in event.data ? event.data.sessionId : '';
        for (const webhook of subscribers(accountId, event.type)) {
          this.o.deliveries.enqueue(webhook.webhookId, accountId, event, sessionKey, now);
          webhooks.add(webhook.webhookId);
        }
      }
      this.saveCheckpoint.run(source, head);
    });
    if (accounts.size > 0) this.o.onRecorded(accounts, webhooks);
  }
}
