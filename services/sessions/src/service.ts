import { openBlobStore } from '@switchboard/blob-store';
import { answerInProcess } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import type { EventStore } from '@switchboard/eventstore';
import { feedWaker, IdempotencyKeys, openReadModelDatabase, openServiceEventStore, ProjectionRunner, serveProjectionRebuilds, serviceDataDir, startMicroservice } from '@switchboard/service-kit';
import type { RunningService, SwitchboardConfig } from '@switchboard/service-kit';
import { feedWakeSubject, SessionsSubjects } from '@switchboard/contracts';
import type { DeleteSessionReply, ReadyReply, SessionRef } from '@switchboard/contracts';
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
import { SentContent } from './connections/sent-content.js';
import { MessagingForwarder } from './connections/messaging-forwarder.js';
import { openMessagingOutbox } from './outbox/open-messaging-outbox.js';
import { NetworkReachability } from './connections/network-reachability.js';
import { ConnectionRegistry } from './connections/registry.js';
import { SessionCommands } from './connections/session-commands.js';
import { SessionSlots } from './connections/quota-slots.js';
import { SessionFeed } from './feed/feed.js';
import { SessionListProjection } from './projections/session-list/projection.js';
import { SessionListQueries } from './projections/session-list/queries.js';
import { SESSIONS_READ_MODELS } from './projections/read-models.js';
import { keepWithinRetention } from './sent-log/retention.js';
import { SENT_LOG_RETENTION_MS } from './sent-log/sent-log.js';
import { openSentLog } from './sent-log/open-sent-log.js';
import { openMessagedContacts } from './pacing/kv-messaged-contacts.js';
import { Pacer } from './pacing/pacer.js';
import { pacingByPlan } from './pacing/pacing-rules.js';
import { PlanPacing } from './pacing/plan-pacing.js';
import { SessionsModule } from './sessions.module.js';
import { ContactChecks } from './connections/contact-checks.js';
import { IdempotentCreate } from './idempotency/create.js';
import { SESSION_KEY_EVENTS } from './idempotency/session-keys.js';
import { LeasedOwnership } from './replicas/leased-ownership.js';
import { SoleOwnership } from './replicas/ownership.js';
import type { LocalSessions, SessionOwnership } from './replicas/ownership.js';
import { ReplicaDirectory } from './replicas/replica-directory.js';
import { holdReplicaIdentity } from './replicas/replica-identity.js';
import { SessionRouter } from './replicas/session-router.js';
import { SessionRequests } from './session-requests.js';
import { connectNats } from './nats-kv.js';

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
  // One connection for the service's JetStream KV buckets (credentials, sent log, replica directory).
  const nats = config.natsUrl ? await connectNats(config.natsUrl, 'sessions-shared-state') : undefined;
  const chat = await openChatNetwork(config, options.chatNetwork, nats).catch(async (error: unknown) => {
    await nats?.close();
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
  const outbox = await openMessagingOutbox(serviceDataDir('sessions', config), nats, logger);
  const forwarder = new MessagingForwarder(bus, outbox, media, logger);
  forwarder.start();
  const reachability = new NetworkReachability();
  // The registry and the manager below report to ownership, which resumes and lets go through them.
  const local: LocalSessions = {
    adopt: (sessionId, accountId) => manager.adopt(sessionId, accountId),
    letGo: (sessionId) => {
      manager.resumes.remove(sessionId);
      return registry.letGo(sessionId);
    },
    // Queued to resume counts as held: this replica answers for it, its socket just is not open yet.
    held: () => [...registry.ids(), ...manager.resumes.ids()],
    cutOff: (sessionId) => {
      manager.resumes.remove(sessionId);
      return registry.letGo(sessionId, { waitForAcks: false });
    },
    online: (sessionId) => registry.online(sessionId),
    live: () => queries.withStatus(['connected', 'pending']),
    isLive: (sessionId) => ['connected', 'pending'].includes(queries.statusOf(sessionId) ?? ''),
    restoreAll: async () => logger.info(await manager.restore(), 'stored sessions taken up after start'),
  };
  // Several replicas share the sessions over NATS; the embedded process holds them all.
  const directory = nats ? await ReplicaDirectory.open(nats) : undefined;
  const identity = directory ? holdReplicaIdentity(serviceDataDir('sessions', config)) : undefined;
  if (identity) logger.info({ replicaId: identity.replicaId, resumed: identity.resumed }, 'sessions replica');
  const ownership: SessionOwnership = directory && identity
    ? new LeasedOwnership({ replicaId: identity.replicaId, directory, local, maxSessions: config.sessionsMaxPerReplica ?? null, logger })
    : new SoleOwnership(local);
  const ended = (sessionId: string) => {
    manager.resumes.remove(sessionId);
    return ownership.release(sessionId);
  };
  const holdsHere = (sessionId: string) => ownership.ownerOf(sessionId) === 'self';
  const connectedOnRecord = (sessionId: string) => queries.statusOf(sessionId) === 'connected';
  const sent = new SentContent(bus, media);
  const sentContent = (accountId: string, sessionId: string, networkMessageId: string) => sent.find(accountId, sessionId, networkMessageId);
  // Safe pacing: applied here, by the replica holding the session's connection (every send of it passes here).
  const messagedContacts = await openMessagedContacts(serviceDataDir('sessions', config), nats);
  const plans = new PlanPacing(pacingByPlan(config.pacingGapMs, config.pacingNewContactGapMs), bus, logger);
  const pacer = new Pacer({ settingsFor: (accountId) => plans.settingsFor(accountId), contacts: messagedContacts, logger });
  const heardFrom = (accountId: string, sessionId: string, phone: string) => void pacer.heardFrom(accountId, sessionId, phone).catch((error: unknown) => logger.warn({ err: error, sessionId }, 'contact not recorded for pacing'));
  const registry = new ConnectionRegistry({ ...chat, sentContent, commands, slots, forwarder, activity, reachability, logger, logoutTimeoutMs: 10_000, ended, holdsHere, connectedOnRecord, heardFrom });
  const removeConnectionsGauge = processMetrics().chatConnections.addSource(() => [[{}, registry.size]]);
  const manager = new ConnectionManager({
    registry, commands, queries, slots, ownership, logger,
    firstQrTimeoutMs: options.firstQrTimeoutMs ?? 20_000,
    resumeConcurrency: config.sessionsResumeConcurrency,
  });
  // Stored sessions resume in the background (the manager's queue): this returns once they are queued.
  await ownership.start();
  const router = new SessionRouter({
    bus,
    ownership,
    online: (sessionId) => registry.online(sessionId),
    holds: (sessionId) => registry.get(sessionId) !== undefined,
    connectedOnRecord,
    hurry: (sessionId) => manager.resumes.hurry(sessionId),
    sendWaitMs: config.sendDeadlineMs,
    logger,
  });

  const ready = () => bus.isConnected() && runner.caughtUp();
  const readiness = (): ReadyReply => ({
    service: 'sessions',
    ready: ready(),
    details: {
      bus: { ok: bus.isConnected() },
      readModels: { ok: runner.caughtUp() },
      connections: { ok: true, detail: `${registry.size} live, ${manager.resumes.size} waiting to resume` },
      chatNetwork: reachability.check(),
    },
  });
  const creator = new IdempotentCreate(new IdempotencyKeys({ store, clock, events: SESSION_KEY_EVENTS }), manager, clock, logger);
  const sentLog = await openSentLog(config, serviceDataDir('sessions', config), nats);
  const stopRetention = keepWithinRetention(sentLog, {
    retentionMs: SENT_LOG_RETENTION_MS,
    onError: (error) => logger.warn({ err: error }, 'old sent-log records not dropped; next run retries'),
  });
  const liveQr = (sessionId: string) => {
    const connection = registry.get(sessionId);
    return connection?.phase === 'pairing' ? connection.currentQr?.code : undefined;
  };
  const feed = new SessionFeed(store, liveQr);
  // An account's sessions are deleted where each is held, so the device is logged out by its own connection.
  const deleteWhereHeld = (ref: SessionRef): Promise<DeleteSessionReply> => requests.delete({ subject: SessionsSubjects.delete.subject, data: ref, headers: {}, local: true });
  const accounts = new AccountSessions({ manager: { delete: deleteWhereHeld }, queries, logger, closedAt: quotaClosedAt(bus), online: (id) => registry.get(id)?.online ?? (manager.resumes.has(id) ? false : undefined) });
  const api = new SessionsApi(manager, creator, new Deliveries(registry, manager, activity, media, sentLog, logger, { pacer, answerQueuedAfterMs: config.sendDeadlineMs }), queries, readiness, feed, accounts, new ContactChecks());
  const requests = new SessionRequests(api, router);
  const app = await startMicroservice(SessionsModule.forApi(api, requests), { bus, queue: 'sessions' });
  const forwarded = directory ? await router.listen((verb, message) => requests.forwarded(verb, message)) : [];
  const rebuilds = await serveProjectionRebuilds({ bus, readModels: SESSIONS_READ_MODELS, store, config, logger });
  // The reads the gateway makes most, answered without the bus where it shares this process.
  const directAnswers = [answerInProcess(bus, SessionsSubjects.get, (request) => api.get(request)), answerInProcess(bus, SessionsSubjects.list, (request) => api.list(request))];
  // An AccountClosed published while this service was down (the CLI closed it meanwhile) is found here.
  void accounts.sweepClosed().catch((error: unknown) => logger.warn({ err: error }, 'closed-account sweep stopped'));

  return {
    name: 'sessions',
    ready,
    close: async () => {
      // Each session handed to another replica first (a rolling update drops none).
      await ownership.drain();
      manager.resumes.stop();
      await ownership.stop();
      removeSessionsGauge();
      removeConnectionsGauge();
      for (const remove of directAnswers) remove();
      for (const subscription of forwarded) await subscription.unsubscribe();
      await app.close();
      // Requests taken before the unsubscribe are answered while this replica still sees the directory.
      await router.settled();
      activity.stop();
      await registry.stopAll();
      await forwarder.stop();
      await outbox.close();
      stopRetention();
      await sentLog.close();
      await messagedContacts.close();
      await media.close();
      await rebuilds.close();
      await runner.stop();
      await directory?.close();
      identity?.release();
      await chat.close();
      await nats?.close();
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
