import type { EventStore } from './event-store.js';
import { KurrentDbEventStore } from './kurrentdb/kurrentdb-event-store.js';
import { SqliteEventStore } from './sqlite/sqlite-event-store.js';

export interface OpenEventStoreOptions {
  /** `SWITCHBOARD_EVENTSTORE_URL`: a `kurrentdb://…`, `kurrent://…`, `kdb://…` or `esdb://…` connection string. */
  url?: string | undefined;
  /** The SQLite file used when no server URL is given, e.g. `./data/sessions.sqlite`. */
  sqlitePath?: string | undefined;
}

// The schemes @kurrent/kurrentdb-client accepts (esdb is deprecated but still understood).
const kurrentScheme = /^(kurrentdb|kurrent|kdb|esdb)(\+discover)?:\/\//i;

/** The event-store server URLs `openEventStore` takes (the configuration checks with it too). */
export const isEventStoreServerUrl = (url: string): boolean => kurrentScheme.test(url.trim());
export const EVENT_STORE_URL_FORMS = 'a kurrentdb://, kurrent://, kdb:// or esdb:// connection string';

/**
 * Picks the adapter from configuration: a KurrentDB URL selects the distributed store;
 * otherwise the embedded SQLite file (created owner-only with its folder if missing).
 */
export function openEventStore(options: OpenEventStoreOptions): EventStore {
  const url = options.url?.trim();
  if (url) {
    if (!isEventStoreServerUrl(url)) {
      throw new Error(`Event store URL must be ${EVENT_STORE_URL_FORMS} (got "${url.split('://')[0]}://…")`);
    }
    return new KurrentDbEventStore(url);
  }
  if (!options.sqlitePath) throw new Error('openEventStore needs a KurrentDB url or a sqlitePath');
  return new SqliteEventStore(options.sqlitePath);
}
