import type { EventStore } from './event-store.js';
import { KurrentDbEventStore } from './kurrentdb/kurrentdb-event-store.js';
import { PostgresEventStore } from './postgres/postgres-event-store.js';
import { SqliteEventStore } from './sqlite/sqlite-event-store.js';

export interface OpenEventStoreOptions {
  /**
   * `SWITCHBOARD_EVENTSTORE_URL`: a `postgres://…` or `postgresql://…` URL, or a `kurrentdb://…`,
   * `kurrent://…`, `kdb://…` or `esdb://…` connection string.
   */
  url?: string | undefined;
  /** The PostgreSQL schema holding the store's tables: the owning service's name. Default `eventstore`. */
  schema?: string | undefined;
  /** The SQLite file used when no server URL is given, e.g. `./data/sessions.sqlite`. */
  sqlitePath?: string | undefined;
}

const postgresScheme = /^postgres(ql)?:\/\//i;
// The schemes @kurrent/kurrentdb-client accepts (esdb is deprecated but still understood).
const kurrentScheme = /^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\//i;

/** The event-store server URLs `openEventStore` takes (the configuration checks with it too). */
export const isEventStoreServerUrl = (url: string): boolean => postgresScheme.test(url.trim()) || kurrentScheme.test(url.trim());
export const EVENT_STORE_URL_FORMS = 'a postgres://, postgresql://, kurrentdb://, kurrent://, kdb:// or esdb:// connection string';

/**
 * Picks the adapter from configuration: a PostgreSQL or KurrentDB URL selects that server;
 * otherwise the embedded SQLite file (created owner-only with its folder if missing).
 */
export function openEventStore(options: OpenEventStoreOptions): EventStore {
  const url = options.url?.trim();
  if (url) {
    if (!isEventStoreServerUrl(url)) {
      throw new Error(`Event store URL must be ${EVENT_STORE_URL_FORMS} (got "${url.split('://')[0]}://…")`);
    }
    if (postgresScheme.test(url)) return new PostgresEventStore(url, options.schema ? { schema: options.schema } : {});
    return new KurrentDbEventStore(url);
  }
  if (!options.sqlitePath) throw new Error('openEventStore needs a server url or a sqlitePath');
  return new SqliteEventStore(options.sqlitePath);
}
