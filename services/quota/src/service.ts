import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Plan, ReadyReply } from '@switchboard/contracts';
import type { Bus } from '@switchboard/bus';
import { serviceDataDir, startMicroservice, ulid } from '@switchboard/service-kit';
import type { RunningService, SwitchboardConfig } from '@switchboard/service-kit';
import type { Logger } from '@switchboard/telemetry';
import type { Clock } from './application/clock.js';
import { bootstrapAccount, registerAdminKey } from './bootstrap.js';
import type { BootstrapAccount } from './bootstrap.js';
import { openQuotaEngine } from './engine.js';
import type { QuotaEngine } from './engine.js';
import { QuotaModule } from './handlers/quota.module.js';
import { EventPublisher } from './publisher/event-publisher.js';
import { PublicationLease } from './publisher/publication-lease.js';

/** What the quota service reads of `SwitchboardConfig` (which satisfies it). */
export interface QuotaServiceConfig {
  dataDir: string;
  eventStoreUrl?: string | undefined;
  defaultPlan: Plan;
  bootstrapApiKey?: string | undefined;
  adminApiKey?: string | undefined;
}

export interface StartQuotaServiceOptions {
  bus: Bus;
  config: QuotaServiceConfig | SwitchboardConfig;
  logger: Logger;
  clock?: Clock;
}

export interface RunningQuotaService extends RunningService {
  /** Set on the very first start only. Print `apiKey` once (if set) on stdout; never log it. */
  readonly bootstrap: BootstrapAccount | undefined;
  /** The domain without the bus (tests, embedded tooling). */
  readonly engine: QuotaEngine;
}

/**
 * Starts the quota service: rebuilds its read models, publishes its events, opens the bootstrap
 * account on an empty store, then answers every `sb.v1.quota.*` request on the bus.
 */
export async function startQuotaService(options: StartQuotaServiceOptions): Promise<RunningQuotaService> {
  const { bus, config, logger } = options;
  // The publisher needs the engine's store, the engine needs the publisher's wake-up: tie late.
  let wakePublisher = (): void => undefined;
  const engine = await openQuotaEngine({
    config,
    clock: options.clock,
    afterApply: () => wakePublisher(),
    onProjectionError: (error, event) => logger.error({ err: error, stream: event?.stream, position: event && String(event.position) }, 'quota projection stopped'),
  });
  const lease = config.eventStoreUrl ? undefined : new PublicationLease(join(serviceDataDir('quota', config), 'publisher.sqlite'), `${hostname()}-${process.pid}-${ulid()}`, 3_000);
  const publisher = new EventPublisher({ bus, store: engine.store, logger, lease });
  wakePublisher = () => publisher.wake();
  try {
    publisher.start(engine.appliedPosition());
    const settings = { ...config, onIgnoredKey: (message: string) => logger.warn(message) };
    const bootstrap = await bootstrapAccount(engine, settings);
    await registerAdminKey(engine, settings);
    const readiness = (): ReadyReply => {
      const checks = { bus: { ok: bus.isConnected() }, readModels: { ok: engine.caughtUp() } };
      return { service: 'quota', ready: checks.bus.ok && checks.readModels.ok, details: checks };
    };
    const app = await startMicroservice(QuotaModule.with(engine.api, readiness), { bus, queue: 'quota' });
    logger.info({ bootstrapAccount: bootstrap?.accountId }, 'quota service started');
    let closing: Promise<void> | undefined;
    const close = async (): Promise<void> => {
      await app.close();
      await publisher.stop();
      lease?.close();
      await engine.close();
    };
    return {
      name: 'quota',
      bootstrap,
      engine,
      ready: () => readiness().ready,
      close: () => (closing ??= close()),
    };
  } catch (error) {
    await publisher.stop();
    lease?.close();
    await engine.close();
    throw error;
  }
}
