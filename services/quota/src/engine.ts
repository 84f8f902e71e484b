import { DatabaseSync } from 'node:sqlite';
import type { EventStore, RecordedEvent } from '@switchboard/eventstore';
import { ProjectionRunner, openServiceEventStore } from '@switchboard/service-kit';
import type { StoreConfig } from '@switchboard/service-kit';
import { QuotaApi } from './application/quota-api.js';
import { QuotaCommands } from './application/quota-core.js';
import { systemClock } from './application/clock.js';
import type { Clock } from './application/clock.js';
import { accountsProjection } from './projections/accounts-projection.js';
import { QuotaReadModel } from './projections/read-model.js';
import { createReadModelSchema } from './projections/schema.js';
import { usageProjection } from './projections/usage-projection.js';

export interface QuotaEngineOptions {
  config: StoreConfig;
  clock?: Clock | undefined;
  /** Called after each batch of events is applied to the read models (the publisher's wake-up). */
  afterApply?: (events: readonly RecordedEvent[]) => void;
  onProjectionError?: (error: unknown, event: RecordedEvent | undefined) => void;
}

/** The quota domain wired to its store and read models, without any bus: the service and the CLI share it. */
export interface QuotaEngine {
  readonly api: QuotaApi;
  readonly commands: QuotaCommands;
  readonly store: EventStore;
  caughtUp(): boolean;
  /** The last store position the read models applied (-1 for an empty store). */
  appliedPosition(): bigint;
  failed(): unknown;
  close(): Promise<void>;
}

/**
 * Opens the quota event store and rebuilds the read models from it, in memory: each process
 * (replica, CLI) keeps its own, so replicas sharing one SQLite store never apply an event twice
 * to a shared table. Resolves once the read models have caught up with the store.
 */
export async function openQuotaEngine(options: QuotaEngineOptions): Promise<QuotaEngine> {
  const store = openServiceEventStore('quota', options.config);
  const db = new DatabaseSync(':memory:');
  createReadModelSchema(db);
  const applied = { account: -1n, usage: -1n };
  const runnerOptions = (category: keyof typeof applied) => ({
    afterApply: (events: readonly RecordedEvent[]) => {
      applied[category] = events.at(-1)!.position;
      options.afterApply?.(events);
    },
    onError: options.onProjectionError,
  });
  const accounts = new ProjectionRunner(store, db, accountsProjection(db), runnerOptions('account'));
  const usage = new ProjectionRunner(store, db, usageProjection(db), runnerOptions('usage'));
  await Promise.all([accounts.start(), usage.start()]);
  await waitUntil(() => (accounts.caughtUp() && usage.caughtUp()) || failedOf(accounts, usage) !== undefined);
  const failure = failedOf(accounts, usage);
  if (failure !== undefined) throw failure;
  const sync = { accounts: (p: bigint) => accounts.waitForPosition(p) };
  const commands = new QuotaCommands(store, options.clock ?? systemClock, sync);
  /** Waits until both read models show everything the store holds now (whoever wrote it). */
  const catchUp = async (scope: 'accounts' | 'all'): Promise<void> => {
    const runners = [['account', accounts], ['usage', usage]] as const;
    for (const [category, runner] of scope === 'all' ? runners : runners.slice(0, 1)) {
      const head = await store.lastPosition({ category });
      if (head !== undefined) await runner.waitForPosition(head);
    }
  };
  return {
    api: new QuotaApi(commands, new QuotaReadModel(db), catchUp),
    commands,
    store,
    caughtUp: () => accounts.caughtUp() && usage.caughtUp(),
    appliedPosition: () => (applied.account > applied.usage ? applied.account : applied.usage),
    failed: () => failedOf(accounts, usage),
    close: async () => {
      await Promise.all([accounts.stop(), usage.stop()]);
      await store.close();
      db.close();
    },
  };
}

function failedOf(...runners: ProjectionRunner[]): unknown {
  return runners.map((runner) => runner.failed()).find((failure) => failure !== undefined);
}

async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 5));
}
