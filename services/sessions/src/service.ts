import { openBlobStore } from '@switchboard/blob-store';
import type { Bus } from '@switchboard/bus';
import type { EventStore } from '@switchboard/eventstore';
import { join } from 'node:path';
import { feedWaker, IdempotencyKeys, openReadModelDatabase, openServiceEventStore, ProjectionRunner, serviceDataDir, startMicroservice } from '@switchboard/service-kit';
import type { RunningService, SwitchboardConfig } from '@switchboard/service-kit';
import { feedWakeSubject } from '@switchboard/contracts';
import type { ReadyReply } from '@switchboard/contracts';
import { processMetrics } from '@switchboard/telemetry';
import type { Logger } from '@switchboard/telemetry';
import { SessionsApi } from './api.js';
import { openChatNetwork } from './chat-network.js';
import type { ChatNetworkOverrides } from './chat-network.js';
import { AccountSessions, quotaClosedAt } from './connections/account-sessions.js';
import { ActivityRecorder } from './connections/activity.js';
import { ConnectionManager } from './connections/connection-manager.js';
import { Deliveries } from './connections/deliveries.js';
import { MediaSource } from './connections/media-source.js';
import { MessagingForwarder } from './connections/messaging-forwarder.js';
import { SqliteMessagingOutbox } from './outbox/sqlite-messaging-outbox.js';
import { NetworkReachability } from './connections/network-reachability.js';
import { ConnectionRegistry } from './connections/registry.js';
import { SessionCommands } from './connections/session-commands.js';
import { SessionSlots } from './connections/quota-slots.js';
import { SessionFeed } from './feed/feed.js';
import { SessionListProjection } from './projections/session-list/projection.js';
import { SessionListQueries } from './projections/session-list/queries.js';
import { keepWithinRetention } from './sent-log/retention.js';
import { SENT_LOG_RETENTION_MS } from './sent-log/sent-log.js';
import { SqliteSentLog } from './sent-log/sqlite-sent-log.js';
import { SessionsModule } from './sessions.module.js';
import { IdempotentCreate } from './idempotency/create.js';
import { SESSION_KEY_EVENTS } from './idempotency/session-keys.js';

export interface SessionsServiceOptions {
  bus: Bus;
  config: SwitchboardConfig;
  logger: Logger;
  clock?: () => Date;
  chatNetwork?: ChatNetworkOverrides;
  /** How long create waits for the network's first QR code (default 20 s). */
  firstQrTimeoutMs?: number;
}

/**
 * Starts the sessions service: its event store and session list (rebuilt from the streams and
 * caught up before anything is answered), the connections of every session that was connected
 * before (resumed without a scan), and the bus handlers. `close()` stops the connections
 * WITHOUT logging out, so the next start resumes them.
 */
export async function startSessionsService(options: SessionsServiceOptions): Promise<RunningService> {
  const { bus, config, logger } = options;
  const clock = options.clock ?? (() => new Date());
  const store = openServiceEventStore('sessions', config);
  const db = openReadModelDatabase('sessions', config);
  const onError = (error: unknown) => logger.error({ err: error }, 'session list projection stopped');
  // Every session fact may be a public event: wake the events service's intake after each.
  const wake = feedWaker(bus, feedWakeSubject('sessions'), (error) => logger.warn({ err: error }, 'feed wake-up not published'));
  const runner = new ProjectionRunner(store, db, new SessionListProjection(db), { onError, afterApply: wake });
  const chat = await openChatNetwork(config, options.chatNetwork).catch(async (error: unknown) => {
    await closeStores(store, db);
    throw error;
  });
  await runner.start();
  await caughtUp(runner);

  const commands = new SessionCommands(store, runner, clock);
  const queries = new SessionListQueries(db);
  // switchboard_sessions{state}: read from the session list when Prometheus scrapes.
  const removeSessionsGauge = processMetrics().sessions.addSource(() => queries.countsByStatus());
  const slots = new SessionSlots(bus, logger);
  const activity = new ActivityRecorder(async (sessionId, accountId, kind) => {
    await commands.execute(sessionId, accountId, { type: 'RecordActivity', activity: kind }).catch((error: unknown) => logger.warn({ err: error, sessionId }, 'activity not recorded'));
  });
  const media = new MediaSource(() => openBlobStore({ dataDir: config.dataDir, natsUrl: config.natsUrl, name: 'sessions-media' }));
  const outbox = new SqliteMessagingOutbox(join(serviceDataDir('sessions', config), 'messaging-outbox.sqlite'));
  const forwarder = new MessagingForwarder(bus, outbox, media, logger);
  forwarder.start();
  const reachability = new NetworkReachability();
  const registry = new ConnectionRegistry({ ...chat, commands, slots, forwarder, activity, reachability, logger, logoutTimeoutMs: 10_000 });
  const manager = new ConnectionManager({ registry, commands, queries, slots, logger, firstQrTimeoutMs: options.firstQrTimeoutMs ?? 20_000 });
  const restored = await manager.restore();
  logger.info(restored, 'sessions restored after start');

  const ready = () => bus.isConnected() && runner.caughtUp();
  const readiness = (): ReadyReply => ({
    service: 'sessions',
    ready: ready(),
    details: {
      bus: { ok: bus.isConnected() },
      readModels: { ok: runner.caughtUp() },
      connections: { ok: true, detail: `${registry.size} live` },
      chatNetwork: reachability.check(),
    },
  });
  const creator = new IdempotentCreate(new IdempotencyKeys({ store, clock, events: SESSION_KEY_EVENTS }), manager, clock, logger);
  const sentLog = new SqliteSentLog(join(serviceDataDir('sessions', config), 'sent-messages.sqlite'));
  const stopRetention = keepWithinRetention(sentLog, {
    retentionMs: SENT_LOG_RETENTION_MS,
    onError: (error) => logger.warn({ err: error }, 'old sent-log records not dropped; next run retries'),
  });
  const liveQr = (sessionId: string) => {
    const connection = registry.get(sessionId);
    return connection?.phase === 'pairing' ? connection.currentQr?.code : undefined;
  };
  const feed = new SessionFeed(store, liveQr);
  const accounts = new AccountSessions({ manager, queries, logger, closedAt: quotaClosedAt(bus), online: (id) => registry.get(id)?.online });
  const api = new SessionsApi(manager, creator, new Deliveries(registry, manager, activity, media, sentLog, logger), queries, readiness, feed, accounts);
  const app = await startMicroservice(SessionsModule.forApi(api), { bus, queue: 'sessions' });
  // An AccountClosed published while this service was down (the CLI closed it meanwhile) is found here.
  void accounts.sweepClosed().catch((error: unknown) => logger.warn({ err: error }, 'closed-account sweep stopped'));

  return {
    name: 'sessions',
    ready,
    close: async () => {
      removeSessionsGauge();
      await app.close();
      activity.stop();
      await registry.stopAll();
      forwarder.stop();
      await outbox.close();
      stopRetention();
      await sentLog.close();
      await media.close();
      await runner.stop();
      chat.close();
      await closeStores(store, db);
    },
  };
}

async function caughtUp(runner: ProjectionRunner): Promise<void> {
  while (!runner.caughtUp()) {
    if (runner.failed() !== undefined) throw runner.failed();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function closeStores(store: EventStore, db: { close(): void; isOpen: boolean }): Promise<void> {
  await store.close();
  if (db.isOpen) db.close();
}
