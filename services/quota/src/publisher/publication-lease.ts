import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { inImmediateTransaction, openSqliteDatabase } from '@switchboard/eventstore';

/**
 * Who publishes the quota events, and up to which store position. Replicas that share one SQLite
 * event store share this file too: the holder of an unexpired lease publishes, the others stay
 * quiet, and a replica that finds the lease expired (its holder crashed) takes over from the
 * recorded position. No lock outlives its holder: a lease is a row with an expiry time.
 */
export class PublicationLease {
  private readonly db: DatabaseSync;
  /** While well inside our own lease, no other replica can hold it: skip the transaction. */
  private heldUntil = 0;
  private position = 0n;
  /** When the lease another replica holds runs out (epoch ms), as the last `acquire` found it. */
  heldElsewhereUntilMs = 0;
  private advanceStatement: StatementSync | undefined;

  constructor(path: string, private readonly holder: string, readonly leaseMs: number) {
    // synchronous=NORMAL: a progress update lost in a power cut only means a few events published twice.
    this.db = openSqliteDatabase(path, `CREATE TABLE IF NOT EXISTS quota_publisher (
      id INTEGER PRIMARY KEY CHECK (id = 1), holder TEXT, lease_until INTEGER NOT NULL, position INTEGER NOT NULL)`);
  }

  /** First start on this store: publish from `head` on, not the whole history. */
  initialize(head: bigint): void {
    this.db.prepare('INSERT OR IGNORE INTO quota_publisher (id, holder, lease_until, position) VALUES (1, NULL, 0, ?)').run(head);
  }

  /** Takes or renews the lease; the position to publish after when held, undefined when another replica holds it. */
  acquire(now = Date.now()): bigint | undefined {
    if (now < this.heldUntil - this.leaseMs / 2) return this.position;
    return this.transaction(() => {
      const row = this.db.prepare('SELECT holder, lease_until, position FROM quota_publisher WHERE id = 1').get() as
        | { holder: string | null; lease_until: number; position: number | bigint }
        | undefined;
      if (!row) return undefined;
      if (row.holder !== this.holder && row.lease_until > now) {
        this.heldElsewhereUntilMs = row.lease_until;
        return undefined;
      }
      this.db.prepare('UPDATE quota_publisher SET holder = ?, lease_until = ? WHERE id = 1').run(this.holder, now + this.leaseMs);
      this.heldUntil = now + this.leaseMs;
      this.position = BigInt(row.position);
      return this.position;
    });
  }

  /** Records progress; false when the lease was lost meanwhile (the new holder goes on). */
  advance(position: bigint): boolean {
    // Prepared once: this runs after every published batch, often once per quota event.
    this.advanceStatement ??= this.db.prepare('UPDATE quota_publisher SET position = ? WHERE id = 1 AND holder = ? AND position < ?');
    const result = this.advanceStatement.run(position, this.holder, position);
    if (result.changes === 0) {
      this.heldUntil = 0;
      return false;
    }
    this.position = position;
    return true;
  }

  /** Hands the lease over at once on a clean shutdown. */
  release(): void {
    this.heldUntil = 0;
    this.db.prepare('UPDATE quota_publisher SET lease_until = 0 WHERE id = 1 AND holder = ?').run(this.holder);
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  private transaction<T>(work: () => T): T {
    return inImmediateTransaction(this.db, work);
  }
}
