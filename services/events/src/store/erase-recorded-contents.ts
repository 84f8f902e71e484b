import type { StoreConfig } from '@switchboard/service-kit';
import { ContentErasures } from './content-erasures.js';
import { openDispatchDatabase } from './database.js';

/**
 * `sb.v1.events.eraseContents` without the service: on the events service's own database in the
 * data dir (`switchboard accounts erase` in the embedded mode works on the stores directly, also
 * while the server runs: SQLite serialises the writes).
 */
export function eraseRecordedContents(config: StoreConfig, accountId: string, erasedAt: string): { eventsErased: number; deliveriesErased: number } {
  const db = openDispatchDatabase(config);
  try {
    return new ContentErasures(db).erase(accountId, erasedAt);
  } finally {
    db.close();
  }
}
