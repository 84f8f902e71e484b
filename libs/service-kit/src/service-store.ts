import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { openEventStore } from '@switchboard/eventstore';
import type { EventStore } from '@switchboard/eventstore';

/** The services that own event streams. */
export type ServiceName = 'sessions' | 'messaging' | 'quota';

export interface StoreConfig {
  dataDir: string;
  eventStoreUrl?: string | undefined;
}

/** `<dataDir>/<service>/`: a service's own files (events, read models, credentials). */
export function serviceDataDir(service: ServiceName, config: StoreConfig): string {
  const dir = resolve(config.dataDir, service);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/**
 * A service's own event store: KurrentDB when `SWITCHBOARD_EVENTSTORE_URL` is set, otherwise a
 * SQLite file in its data directory. No service ever opens another's.
 */
export function openServiceEventStore(service: ServiceName, config: StoreConfig): EventStore {
  if (config.eventStoreUrl) return openEventStore({ url: config.eventStoreUrl });
  return openEventStore({ sqlitePath: join(serviceDataDir(service, config), 'events.sqlite') });
}

/**
 * The service's read-model database: rebuilt from the streams, so it may be deleted at any time.
 * WAL lets the GET handlers read while a projection writes.
 */
export function openReadModelDatabase(service: ServiceName, config: StoreConfig): DatabaseSync {
  const db = new DatabaseSync(join(serviceDataDir(service, config), 'read-models.sqlite'));
  // busy_timeout first: switching to WAL needs a lock that another process starting beside us may hold.
  db.exec('PRAGMA busy_timeout = 10000; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;');
  return db;
}
