import type { DatabaseSync } from 'node:sqlite';
import type { Bus } from '@switchboard/bus';
import { publicEventsWakeSubject, WEBHOOK_TIMEOUT_MS } from '@switchboard/contracts';
import type { ReadyReply } from '@switchboard/contracts';
import type { EventStore } from '@switchboard/eventstore';
import type { Resolver } from '@switchboard/net-policy';
import { IdempotencyKeys, openServiceEventStore, ProjectionRunner, resolveSecretKey, SecretCipher, serveProjectionRebuilds, serviceDataDir, startMicroservice } from '@switchboard/service-kit';
import type { RunningService, SwitchboardConfig } from '@switchboard/service-kit';
import type { Logger } from '@switchboard/telemetry';
import { Dispatcher } from './dispatch/dispatcher.js';
import { parseRetrySchedule } from './dispatch/retry-schedule.js';
import { EventsApi } from './handlers/events-api.js';
import { EventsModule } from './handlers/events.module.js';
import { Intake } from './intake/intake.js';
import { openDispatchDatabase } from './store/database.js';
import { ContentErasures } from './store/content-erasures.js';
import { DeliveryStore } from './store/deliveries.js';
import { PublicFeed } from './store/public-feed.js';
import { SealedSecrets } from './store/secrets.js';
import { WebhookProjection, WebhookQueries } from './webhook/projection.js';
import { EVENTS_READ_MODELS } from './webhook/read-models.js';
import { WEBHOOK_KEY_EVENTS } from './webhook/webhook-keys.js';

/** The dispatcher's longest sleep: it wakes for new events and for each retry when it is due. */
const DISPATCHER_MAX_SLEEP_MS = 30_000;

export interface StartEventsServiceOptions {
  bus: Bus;
  config: SwitchboardConfig;
  logger: Logger;
  /** Tests answer host names without real DNS. */
  resolver?: Resolver;
  /**
   * How often the sources' feeds are read besides their wake-ups: default 1 s over NATS (a wake-up
   * published while the connection was down is lost), 30 s on the in-process bus (a wake-up is a
   * call: the poll is only a safety net).
   */
  pollMs?: number;
}

export interface RunningEventsService extends RunningService {
  readonly api: EventsApi;
  readonly intake: Intake;
  readonly deliveries: DeliveryStore;
}

/**
 * Starts the events service: the webhook list (rebuilt from the webhook streams), the intake of
 * the sources' public feeds, the dispatcher, and every `sb.v1.events.*` request on the bus.
 */
export async function startEventsService(options: StartEventsServiceOptions): Promise<RunningEventsService> {
  const { config, logger } = options;
  const pollMs = options.pollMs ?? (config.natsUrl === undefined ? 30_000 : 1_000);
  const schedule = parseRetrySchedule(config.webhookRetryScheduleMs);
  const key = resolveSecretKey({ configured: config.secretKey, dataDir: serviceDataDir('events', config), embedded: config.natsUrl === undefined });
  const store = openServiceEventStore('events', config);
  let db: DatabaseSync | undefined;
  try {
    db = openDispatchDatabase(config);
    const runner = new ProjectionRunner(store, db, new WebhookProjection(db), { onError: (error) => logger.error({ err: error }, 'webhook projection stopped') });
    await runner.start();
    return await assemble({ ...options, pollMs, schedule }, store, db, runner, new SecretCipher(key));
  } catch (error) {
    db?.close();
    await store.close();
    throw error;
  }
}

async function assemble(
  o: StartEventsServiceOptions & { pollMs: number; schedule: readonly number[] },
  store: EventStore,
  db: DatabaseSync,
  runner: ProjectionRunner,
  cipher: SecretCipher,
): Promise<RunningEventsService> {
  const { bus, config, logger } = o;
  const webhooks = new WebhookQueries(db);
  const secrets = new SealedSecrets(db, cipher);
  const feed = new PublicFeed(db);
  const deliveries = new DeliveryStore(db);
  const erasures = new ContentErasures(db);
  const allowLoopback = config.webhookAllowLoopback;
  const dispatcher = new Dispatcher({ deliveries, webhooks, secrets, schedule: o.schedule, allowLoopback, timeoutMs: WEBHOOK_TIMEOUT_MS, pollMs: DISPATCHER_MAX_SLEEP_MS, resolver: o.resolver, logger });
  const intake = new Intake({
    bus, db, feed, deliveries, webhooks, erasures, logger, pollMs: o.pollMs,
    onRecorded: (accounts, touched) => {
      for (const id of touched) dispatcher.kick(id);
      // Fire and forget: a live stream that misses a wake-up finds the events at its next poll.
      for (const accountId of accounts) bus.publish(publicEventsWakeSubject(accountId), {}).catch(() => undefined);
    },
  });
  const ready = () => bus.isConnected() && runner.caughtUp();
  const readiness = (): ReadyReply => ({
    service: 'events',
    ready: ready(),
    details: { bus: { ok: bus.isConnected() }, readModels: { ok: runner.caughtUp() } },
  });
  const keys = new IdempotencyKeys({ store, clock: () => new Date(), events: WEBHOOK_KEY_EVENTS });
  const api = new EventsApi({ store, runner, keys, logger, webhooks, secrets, feed, deliveries, erasures, allowLoopback, resolver: o.resolver, readiness, kick: (id) => dispatcher.kick(id), retire: (id) => dispatcher.retireAgent(id) });
  const app = await startMicroservice(EventsModule.with(api), { bus, queue: 'events' });
  await intake.start();
  dispatcher.start();
  const rebuilds = await serveProjectionRebuilds({ bus, readModels: EVENTS_READ_MODELS, store, config, logger });
  logger.info({ pendingDeliveries: deliveries.pendingCount() }, 'events service started');
  let closing: Promise<void> | undefined;
  const close = async () => {
    await app.close();
    await rebuilds.close();
    await intake.stop();
    await dispatcher.stop();
    await runner.stop();
    db.close();
    await store.close();
  };
  return { name: 'events', api, intake, deliveries, ready, close: () => (closing ??= close()) };
}
