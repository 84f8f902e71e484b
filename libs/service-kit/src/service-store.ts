import { join, resolve } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { ensurePrivateDir, openEventStore, openSqliteDatabase } from '@switchboard/eventstore';
import type { EventStore } from '@switchboard/eventstore';

/** The services that own event streams. */
export type ServiceName = 'sessions' | 'messaging' | 'quota' | 'events';

export interface StoreConfig {
  dataDir: string;
  eventStoreUrl?: string | undefined;
}

/** `<dataDir>/<service>/`: a service's own files (events, read models, credentials), owner-only. */
export function serviceDataDir(service: ServiceName, config: StoreConfig): string {
  return ensurePrivateDir(resolve(config.dataDir, service));
}

/**
 * A service's own event store: the server `SWITCHBOARD_EVENTSTORE_URL` names (on PostgreSQL, in a
 * schema named after the service), otherwise a SQLite file in its data directory. No service ever
 * opens another's.
 */
export function openServiceEventStore(service: ServiceName, config: StoreConfig): EventStore {
  if (config.eventStoreUrl) return openEventStore({ url: config.eventStoreUrl, schema: service });
  return openEventStore({ sqlitePath: join(serviceDataDir(service, config), 'events.sqlite') });
}

/**
 * The service's read-model database: rebuilt from the streams, so it may be deleted at any time.
 * WAL lets the GET handlers read while a projection writes.
 */
export function openReadModelDatabase(service: ServiceName, config: StoreConfig): DatabaseSync {
  // No schema here: each projection creates its own tables.
  return openSqliteDatabase(readModelFile(service, config), '');
}

/** `<dataDir>/<service>/read-models.sqlite`: where openReadModelDatabase keeps the service's read models. */
export function readModelFile(service: ServiceName, config: StoreConfig): string {
  return join(resolve(config.dataDir), service, 'read-models.sqlite');
}
