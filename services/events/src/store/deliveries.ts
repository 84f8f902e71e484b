import type { DatabaseSync } from 'node:sqlite';
import type { DeliveryStatus, DeliveryView, PublicEvent } from '@switchboard/contracts';

/** A delivery the dispatcher is about to attempt. */
export interface DueDelivery {
  deliveryId: number;
  webhookId: string;
  eventId: string;
  body: string;
  attempts: number;
}

interface ViewRow {
  delivery_id: number;
  event_id: string;
  event_type: string;
  state: DeliveryStatus;
  attempts: number;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: number | null;
  next_attempt_at: number | null;
  created_at: number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** Opaque page cursors: the delivery id to continue below, in base36. */
export const encodeCursor = (deliveryId: number): string => deliveryId.toString(36);
export const decodeCursor = (cursor: string): number | null => {
  const n = parseInt(cursor, 36);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
};

/**
 * Deliveries: one row per (webhook, event) to send, with its attempts and outcome. The queue of a
 * webhook is ordered per session: only the oldest pending delivery of a session may be attempted,
 * so a session's events arrive in the order they happened even across retries.
 */
export class DeliveryStore {
  private readonly insert;
  private readonly succeed;
  private readonly retry;
  private readonly fail;
  private readonly heads;

  constructor(private readonly db: DatabaseSync) {
    this.insert = db.prepare(`INSERT INTO deliveries (webhook_id, account_id, event_id, event_type, session_key, body, state, next_attempt_at, created_at)
      VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)`);
    this.succeed = db.prepare(`UPDATE deliveries SET state = 'succeeded', attempts = attempts + 1, last_status = ?, last_error = NULL, last_attempt_at = ?, next_attempt_at = NULL WHERE delivery_id = ?`);
    this.retry = db.prepare('UPDATE deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?, last_attempt_at = ?, next_attempt_at = ? WHERE delivery_id = ?');
    // Oldest first; a row is a head when no older pending row of its session exists (an index
    // probe each), so a long queue behind one session costs O(log n), not a scan per attempt.
    this.heads = db.prepare(`SELECT d.delivery_id, d.webhook_id, d.event_id, d.body, d.attempts FROM deliveries d
        WHERE d.webhook_id = ? AND d.state = 'pending' AND d.next_attempt_at <= ?
          AND NOT EXISTS (SELECT 1 FROM deliveries e WHERE e.webhook_id = d.webhook_id AND e.state = 'pending' AND e.session_key = d.session_key AND e.delivery_id < d.delivery_id)
        ORDER BY d.delivery_id LIMIT ?`);
    this.fail = db.prepare(`UPDATE deliveries SET state = 'failed', attempts = attempts + 1, last_status = ?, last_error = ?, last_attempt_at = ?, next_attempt_at = NULL WHERE delivery_id = ?`);
  }

  enqueue(webhookId: string, accountId: string, event: PublicEvent, sessionKey: string, now: number): void {
    this.insert.run(webhookId, accountId, event.id, event.type, sessionKey, JSON.stringify(event), now, now);
  }

  /** Webhooks with a delivery due now. */
  dueWebhooks(now: number): string[] {
    const rows = this.db.prepare(`SELECT DISTINCT webhook_id FROM deliveries WHERE state = 'pending' AND next_attempt_at <= ?`).all(now) as { webhook_id: string }[];
    return rows.map((r) => r.webhook_id);
  }

  /** The head of each session's queue on this webhook, if due now; oldest first. */
  dueHeads(webhookId: string, now: number, limit: number): DueDelivery[] {
    const rows = this.heads
      .all(webhookId, now, limit) as { delivery_id: number; webhook_id: string; event_id: string; body: string; attempts: number }[];
    return rows.map((r) => ({ deliveryId: r.delivery_id, webhookId: r.webhook_id, eventId: r.event_id, body: r.body, attempts: r.attempts }));
  }

  succeeded(deliveryId: number, status: number, now: number): void {
    this.succeed.run(status, now, deliveryId);
  }

  /** A failed attempt: retried at `nextAt`, or failed for good when `nextAt` is null. */
  attemptFailed(deliveryId: number, status: number | null, error: string, now: number, nextAt: number | null): void {
    if (nextAt === null) this.fail.run(status, error, now, deliveryId);
    else this.retry.run(status, error, now, nextAt, deliveryId);
  }

  /** A deleted webhook's pending deliveries fail at once (nothing is sent to it any more). */
  failPending(webhookId: string, reason: string, now: number): void {
    this.db.prepare(`UPDATE deliveries SET state = 'failed', last_error = ?, next_attempt_at = NULL, last_attempt_at = ? WHERE webhook_id = ? AND state = 'pending'`).run(reason, now, webhookId);
  }

  /** Newest first, below `beforeId` when given. */
  page(webhookId: string, status: DeliveryStatus | undefined, limit: number, beforeId: number | null): { deliveries: DeliveryView[]; nextCursor: string | null } {
    const where = ['webhook_id = ?'];
    const params: (string | number)[] = [webhookId];
    if (status) {
      where.push('state = ?');
      params.push(status);
    }
    if (beforeId !== null) {
      where.push('delivery_id < ?');
      params.push(beforeId);
    }
    const rows = this.db.prepare(`SELECT * FROM deliveries WHERE ${where.join(' AND ')} ORDER BY delivery_id DESC LIMIT ?`).all(...params, limit + 1) as unknown as ViewRow[];
    const more = rows.length > limit;
    const shown = rows.slice(0, limit);
    return {
      deliveries: shown.map((r) => ({
        deliveryId: encodeCursor(r.delivery_id),
        eventId: r.event_id,
        eventType: r.event_type,
        status: r.state,
        attempts: r.attempts,
        lastStatusCode: r.last_status,
        lastError: r.last_error,
        lastAttemptAt: iso(r.last_attempt_at),
        nextAttemptAt: iso(r.state === 'pending' ? r.next_attempt_at : null),
        createdAt: new Date(r.created_at).toISOString(),
      })),
      nextCursor: more && shown.length > 0 ? encodeCursor(shown.at(-1)!.delivery_id) : null,
    };
  }

  pendingCount(): number {
    return (this.db.prepare(`SELECT COUNT(*) AS n FROM deliveries WHERE state = 'pending'`).get() as { n: number }).n;
  }
}
