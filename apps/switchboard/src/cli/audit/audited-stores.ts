import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { KurrentDbEventStore, PostgresEventStore } from '@switchboard/eventstore';
import type { EventStore, RecordedEvent } from '@switchboard/eventstore';
import { openServiceEventStore } from '@switchboard/service-kit';
import type { ServiceName, SwitchboardConfig } from '@switchboard/service-kit';

/** One service's event store as the audit commands read it. */
export interface AuditedStore {
  /** The service whose store this is; `all` for a KurrentDB log every service shares. */
  service: ServiceName | 'all';
  /** Where the events are read (never a URL: it may hold a password). */
  where: string;
  /** Undefined when the service has no store yet (no SQLite file): nothing to read, and none is created. */
  store: EventStore | undefined;
}

/** Events per read: small pages stay in the young generation, so reading adds no memory however large the store. */
export const PAGE_SIZE = 1_000;

/**
 * Opens the event stores of `services` as the services open them from the configuration (SQLite
 * files under the data dir, or the PostgreSQL schemas / KurrentDB log of SWITCHBOARD_EVENTSTORE_URL),
 * runs `work` on them and closes them. A KurrentDB log holds every service's streams: it is one store.
 */
export async function withAuditedStores<T>(config: SwitchboardConfig, services: readonly ServiceName[], work: (stores: AuditedStore[]) => Promise<T>): Promise<T> {
  const stores: AuditedStore[] = [];
  try {
    for (const service of services) {
      const sqlitePath = config.eventStoreUrl ? undefined : sqliteStorePath(service, config.dataDir);
      if (sqlitePath !== undefined && !existsSync(sqlitePath)) {
        stores.push({ service, where: sqlitePath, store: undefined });
        continue;
      }
      const store = openServiceEventStore(service, config);
      const shared = store instanceof KurrentDbEventStore;
      const where = sqlitePath ?? (store instanceof PostgresEventStore ? `PostgreSQL schema "${service}"` : 'KurrentDB (every service)');
      stores.push({ service: shared ? 'all' : service, where, store });
      if (shared) break;
    }
    return await work(stores);
  } finally {
    for (const { store } of stores) await store?.close();
  }
}

/** The store that holds `service`'s streams: its own, or the one log every service shares. */
export function storeOf(stores: readonly AuditedStore[], service: ServiceName): AuditedStore | undefined {
  return stores.find((s) => s.service === service || s.service === 'all');
}

/** Where openServiceEventStore keeps a service's SQLite store (checked first: reading never creates one). */
function sqliteStorePath(service: ServiceName, dataDir: string): string {
  return join(resolve(dataDir), service, 'events.sqlite');
}

/** The log (or one category of it) in position order, page by page, from the event at `from` on (default: the start). */
export async function* logPages(store: EventStore, options: { category?: string; from?: bigint } = {}): AsyncGenerator<RecordedEvent[]> {
  const category = options.category === undefined ? {} : { category: options.category };
  let page = await store.readAll({ ...category, ...(options.from === undefined ? {} : { fromPosition: options.from }), maxCount: PAGE_SIZE });
  while (page.length > 0) {
    yield page;
    const last = page.at(-1)!.position;
    // From the last event read, inclusive: a position only names a real event (KurrentDB's are byte offsets).
    page = (await store.readAll({ ...category, fromPosition: last, maxCount: PAGE_SIZE + 1 })).filter((event) => event.position > last);
  }
}

/** One stream in revision order, page by page. */
export async function* streamPages(store: EventStore, stream: string): AsyncGenerator<RecordedEvent[]> {
  let page = await store.readStream(stream, { maxCount: PAGE_SIZE });
  while (page.length > 0) {
    yield page;
    page = await store.readStream(stream, { fromRevision: page.at(-1)!.revision + 1n, maxCount: PAGE_SIZE });
  }
}
