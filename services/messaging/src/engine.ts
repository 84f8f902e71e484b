import type { DatabaseSync } from 'node:sqlite';
import type { BlobStore } from '@switchboard/blob-store';
import { MEDIA_FETCH_TIMEOUT_MS, feedWakeSubject } from '@switchboard/contracts';
import type { Bus } from '@switchboard/bus';
import type { EventStore, RecordedEvent } from '@switchboard/eventstore';
import { IdempotencyKeys, ProjectionRunner, feedWaker, openReadModelDatabase, openServiceEventStore } from '@switchboard/service-kit';
import type { Logger } from '@switchboard/telemetry';
import type { Clock } from './application/clock.js';
import { MessageStore } from './application/message-store.js';
import { MessageFacts } from './contents/message-facts.js';
import { openContentKeys } from './contents/open-content-keys.js';
import type { OpenedContentKeys } from './contents/open-content-keys.js';
import { ContentEraser } from './erasure/erase-contents.js';
import { MessagingApi } from './handlers/messaging-api.js';
import type { MediaPolicy } from './media/resolve-media.js';
import { messageFeed } from './feed/feed.js';
import { messageHistoryProjection } from './projections/message-history/projection.js';
import { MessageHistoryQueries } from './projections/message-history/queries.js';
import { messageStatusProjection } from './projections/message-status/projection.js';
import { MessageStatusQueries } from './projections/message-status/queries.js';
import { Recovery } from './recovery/recovery.js';
import { Delivery } from './send/delivery.js';
import type { DeliveryOutcome } from './send/delivery.js';
import { holderLetsGo, MESSAGE_KEY_EVENTS } from './idempotency/message-keys.js';
import { SendPipeline } from './send/send-message.js';

/** What the messaging service reads of `SwitchboardConfig` (which satisfies it). */
export interface MessagingServiceConfig {
  dataDir: string;
  eventStoreUrl?: string | undefined;
  natsUrl?: string | undefined;
  sendDeadlineMs: number;
  mediaAllowLoopback: boolean;
  /** SWITCHBOARD_SECRET_KEY: wraps the accounts' data keys (generated into the data dir when embedded and unset). */
  secretKey?: string | undefined;
}

/** Observation points for metrics and spans (issue 7); each is optional and must not throw. */
export interface MessagingHooks {
  onDeliveryOutcome?: (messageId: string, outcome: DeliveryOutcome) => void;
}

export interface MessagingEngineOptions {
  bus: Bus;
  config: MessagingServiceConfig;
  logger: Logger;
  clock: Clock;
  blobs: BlobStore;
  /** Media fetch settings beyond the config (tests inject a DNS stub here). */
  media?: Partial<MediaPolicy>;
  hooks?: MessagingHooks;
}

/** The messaging domain wired to its store, read model and the bus, minus the Nest transport. */
export interface MessagingEngine {
  readonly api: MessagingApi;
  readonly recovery: Recovery;
  readonly store: EventStore;
  caughtUp(): boolean;
  close(): Promise<void>;
}

export async function openMessagingEngine(o: MessagingEngineOptions): Promise<MessagingEngine> {
  const keys = (await openContentKeys(o.config))!;
  let store: EventStore | undefined;
  let db: DatabaseSync | undefined;
  try {
    store = openServiceEventStore('messaging', o.config);
    db = openReadModelDatabase('messaging', o.config);
    const facts = new MessageFacts(keys.keys);
    const erasures = new ErasureFollower(o.logger, facts);
    const onError = (error: unknown, event: { stream: string } | undefined, projection?: string) =>
      o.logger.error({ err: error, stream: event?.stream, projection }, 'message read model stopped');
    // Every message fact may be a public event: wake the events service's intake after each.
    const wake = feedWaker(o.bus, feedWakeSubject('messaging'), (error) => o.logger.warn({ err: error }, 'feed wake-up not published'));
    // Status and history follow the same facts: read once, applied in one transaction per batch.
    const runner = new ProjectionRunner(store, db, [messageStatusProjection(db), messageHistoryProjection(db)], {
      onError,
      afterApply: async (events) => {
        wake();
        await erasures.follow(events);
      },
    });
    await runner.start();
    return assemble(o, { store, db, runner, facts, keys, erasures });
  } catch (error) {
    db?.close();
    await store?.close();
    await keys.close();
    throw error;
  }
}

/** What `openMessagingEngine` opened, for `assemble`. */
interface Opened {
  store: EventStore;
  db: DatabaseSync;
  /** Both message read models (status and history). */
  runner: ProjectionRunner;
  facts: MessageFacts;
  keys: OpenedContentKeys;
  erasures: ErasureFollower;
}

/**
 * Acts on every erasure of an account's contents the history read model applies, recorded here or
 * by another process (a replica, the CLI): the keys it names are no longer used and destroyed in
 * the store (whoever gets there first), and no opened content stays in memory.
 */
class ErasureFollower {
  forgetFolded: () => void = () => undefined;

  constructor(
    private readonly logger: Logger,
    private readonly facts: MessageFacts,
  ) {}

  async follow(events: readonly RecordedEvent[]): Promise<void> {
    for (const event of events) {
      if (event.type !== 'MessageContentsErased') continue;
      const { accountId, keyIds } = event.data as { accountId: string; keyIds: string[] };
      this.forgetFolded();
      await this.facts.keys.erased(accountId, keyIds).catch((error: unknown) => this.logger.error({ err: error, accountId }, 'an erased data key was not destroyed; the next erasure retries'));
    }
  }
}

function assemble(o: MessagingEngineOptions, opened: Opened): MessagingEngine {
  const { bus, logger, clock, config } = o;
  const { store, db, runner, facts, keys, erasures } = opened;
  const statuses = new MessageStatusQueries(db);
  const messages = new MessageStore(store, clock, runner, facts);
  erasures.forgetFolded = () => messages.forgetFolded();
  const historyQueries = new MessageHistoryQueries(db, facts);
  const eraser = new ContentEraser({
    store, facts, blobs: o.blobs, now: () => clock.now(),
    afterErasure: async (_accountId, position) => {
      messages.forgetFolded();
      // A lookup right after the reply reads the erased history.
      if (position !== undefined) await runner.waitForPosition(position);
    },
  });
  const delivery = new Delivery({ bus, messages, statuses, logger, sendDeadlineMs: config.sendDeadlineMs, onOutcome: o.hooks?.onDeliveryOutcome });
  const media: MediaPolicy = { allowLoopback: config.mediaAllowLoopback, fetchTimeoutMs: MEDIA_FETCH_TIMEOUT_MS, ...o.media };
  const pipeline = new SendPipeline({
    bus, clock, messages, statuses, delivery, logger, media,
    idempotency: new IdempotencyKeys({
      store,
      clock: () => clock.now(),
      events: MESSAGE_KEY_EVENTS,
      holderLetsGo: async (messageId) => holderLetsGo(await messages.load(messageId)),
    }),
    blobs: o.blobs,
    sendDeadlineMs: config.sendDeadlineMs,
  });
  // Stale = older than any live request could still be working on (deadline, retries, margin).
  const recovery = new Recovery({ messages, statuses, delivery, clock, logger, staleAfterMs: 3 * config.sendDeadlineMs + 60_000 });
  const readiness = () => ({
    service: 'messaging',
    ready: bus.isConnected() && runner.caughtUp(),
    details: { bus: { ok: bus.isConnected() }, readModels: { ok: runner.caughtUp() } },
  });
  return {
    api: new MessagingApi(pipeline, messages, statuses, readiness, messageFeed(store, facts), {
      store, clock, statuses, history: historyQueries, runner, messages,
    }, eraser),
    recovery,
    store,
    caughtUp: () => runner.caughtUp(),
    close: async () => {
      await recovery.stop();
      await delivery.drain(config.sendDeadlineMs);
      await runner.stop();
      db.close();
      await store.close();
      await keys.close();
    },
  };
}
