import type { DatabaseSync } from 'node:sqlite';

/** Page cache of a read model's connection while a runner catches up: 64 MiB (SQLite's default is 2 MiB). */
export const CATCH_UP_CACHE_KIB = 65_536;
/** WAL pages before an automatic checkpoint while catching up (SQLite's default is 1,000: 4 MiB). */
export const CATCH_UP_WAL_AUTOCHECKPOINT_PAGES = 10_000;

interface Raised {
  holders: number;
  cacheSize: number;
  walAutocheckpoint: number;
}

/** Per connection: several runners share one (messaging's status and history read models). */
const raised = new WeakMap<DatabaseSync, Raised>();

const pragma = (db: DatabaseSync, name: string): number => Number(Object.values(db.prepare(`PRAGMA ${name}`).get() ?? {})[0]);

/**
 * A read model built from far behind rewrites the same pages batch after batch (a receipt updates
 * the row of a message sent minutes before): with a cache larger than those pages and checkpoints
 * ten times rarer, each batch reads fewer pages back from the file and the WAL copies each page to
 * the database once per checkpoint rather than once per batch (the runner's rebuild of the message
 * status read model took 18.1-18.5 µs of CPU per event with SQLite's defaults and 15.4-15.5 µs with
 * both raised). Neither setting changes what a commit makes durable. Raised on the connection until
 * every runner that raised it lets go; then the previous values are back (the cache gives its
 * pages up, the next commit checkpoints the WAL). The WAL file keeps the size it reached (up to
 * about 40 MiB), as SQLite keeps it, to be written over.
 */
export function raiseForCatchUp(db: DatabaseSync): () => void {
  let entry = raised.get(db);
  if (entry === undefined) {
    entry = { holders: 0, cacheSize: pragma(db, 'cache_size'), walAutocheckpoint: pragma(db, 'wal_autocheckpoint') };
    raised.set(db, entry);
    // Never smaller than a cache the connection already has (a rebuild's generation sets 64 MiB).
    db.exec(`PRAGMA cache_size = -${Math.max(CATCH_UP_CACHE_KIB, -entry.cacheSize)}; PRAGMA wal_autocheckpoint = ${CATCH_UP_WAL_AUTOCHECKPOINT_PAGES}`);
  }
  const held = entry;
  held.holders += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    held.holders -= 1;
    if (held.holders > 0) return;
    raised.delete(db);
    if (db.isOpen) db.exec(`PRAGMA cache_size = ${held.cacheSize}; PRAGMA wal_autocheckpoint = ${held.walAutocheckpoint}`);
  };
}
