import type { DatabaseSync, StatementSync } from 'node:sqlite';
import type { DeliveryStatus, DeliveryView, PublicEvent } from '@switchboard/contracts';
import { inImmediateTransaction } from '@switchboard/eventstore';

/** A delivery the dispatcher is about to attempt: the head of its session's queue. */
export interface DueDelivery {
  deliveryId: number;
  webhookId: string;
  sessionKey: string;
  eventId: string;
  body: string;
  attempts: number;
}

interface DueRow {
  delivery_id: number;
  webhook_id: string;
  session_key: string;
  event_id: string;
  body: string;
  attempts: number;
}

const due = (r: DueRow): DueDelivery => ({ deliveryId: r.delivery_id, webhookId: r.webhook_id, sessionKey: r.session_key, eventId: r.event_id, body: r.body, attempts: r.attempts });

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
 * webhook is ordered per session: only the oldest pending delivery of a session, its head
 * (`is_head`), may be attempted, so a session's events arrive in the order they happened even
 * across retries. Heads are kept marked as deliveries are added and finished, so finding the
 * work of a webhook reads heads only (a partial index), however deep one session's queue is.
 */
export class DeliveryStore {
  private readonly insert;
  private readonly succeed;
  private readonly retry;
  private readonly fail;
  private readonly heads;
  private readonly promote;

  private earliestHeads: StatementSync | undefined;

  constructor(private readonly db: DatabaseSync) {
    this.insert = db.prepare(`INSERT INTO deliveries (webhook_id, account_id, event_id, event_type, session_key, body, state, next_attempt_at, created_at, is_head)
      SELECT :webhook, :account, :event, :type, :session, :body, 'pending', :now, :now,
        NOT EXISTS (SELECT 1 FROM deliveries WHERE webhook_id = :webhook AND state = 'pending' AND session_key = :session)`);
    this.succeed = db.prepare(`UPDATE deliveries SET state = 'succeeded', is_head = 0, attempts = attempts + 1, last_status = ?, last_error = NULL, last_attempt_at = ?, next_attempt_at = NULL WHERE delivery_id = ?`);
    this.retry = db.prepare('UPDATE deliveries SET attempts = attempts + 1, last_status = ?, last_error = ?, last_attempt_at = ?, next_attempt_at = ? WHERE delivery_id = ?');
    this.fail = db.prepare(`UPDATE deliveries SET state = 'failed', is_head = 0, attempts = attempts + 1, last_status = ?, last_error = ?, last_attempt_at = ?, next_attempt_at = NULL WHERE delivery_id = ?`);
    // Longest due first (the partial index's order), so LIMIT stops early however many are due.
    this.heads = db.prepare(`SELECT delivery_id, webhook_id, session_key, event_id, body, attempts FROM deliveries INDEXED BY deliveries_heads
        WHERE webhook_id = ? AND state = 'pending' AND is_head = 1 AND next_attempt_at <= ?
        ORDER BY next_attempt_at, delivery_id LIMIT ?`);
    this.promote = db.prepare(`UPDATE deliveries SET is_head = 1 WHERE delivery_id =
        (SELECT delivery_id FROM deliveries WHERE webhook_id = ? AND state = 'pending' AND session_key = ? AND delivery_id > ? ORDER BY delivery_id LIMIT 1)
      RETURNING delivery_id, webhook_id, session_key, event_id, body, attempts, next_attempt_at`);
  }

  enqueue(webhookId: string, accountId: string, event: PublicEvent, sessionKey: string, now: number): void {
    this.insert.run({ webhook: webhookId, account: accountId, event: event.id, type: event.type, session: sessionKey, body: JSON.stringify(event), now });
  }

  /** Several events for one webhook, in their order, in one transaction (all of them, or none). */
  enqueueAll(webhookId: string, accountId: string, events: readonly { event: PublicEvent; sessionKey: string }[], now: number): void {
    inImmediateTransaction(this.db, () => {
      for (const { event, sessionKey } of events) this.enqueue(webhookId, accountId, event, sessionKey, now);
    });
  }

  /**
   * Each webhook with a pending head, and when its earliest head is due (epoch ms). Heads only: a
   * delivery behind a head that waits for its retry is not due, whatever its own time says.
   */
  headsDue(): { webhookId: string; at: number }[] {
    this.earliestHeads ??= this.db.prepare(`SELECT webhook_id, MIN(next_attempt_at) AS at FROM deliveries INDEXED BY deliveries_heads
        WHERE state = 'pending' AND is_head = 1 GROUP BY webhook_id`);
    return (this.earliestHeads.all() as { webhook_id: string; at: number | bigint }[]).map((r) => ({ webhookId: r.webhook_id, at: Number(r.at) }));
  }

  /** Heads due now on this webhook (one per session), those waiting longest first. */
  dueHeads(webhookId: string, now: number, limit: number): DueDelivery[] {
    return (this.heads.all(webhookId, now, limit) as unknown as DueRow[]).map(due);
  }

  /** A head delivered: the next delivery of its session (now its head) if it is due, in one transaction. */
  succeeded(head: DueDelivery, status: number, now: number): DueDelivery | undefined {
    return inImmediateTransaction(this.db, () => {
      this.succeed.run(status, now, head.deliveryId);
      return this.promoteNext(head, now);
    });
  }

  /**
   * A failed attempt: retried at `nextAt` (the head stays, holding its session's queue), or failed
   * for good when `nextAt` is null (the next delivery of its session, if due, is returned).
   */
  attemptFailed(head: DueDelivery, status: number | null, error: string, now: number, nextAt: number | null): DueDelivery | undefined {
    if (nextAt !== null) {
      this.retry.run(status, error, now, nextAt, head.deliveryId);
      return undefined;
    }
    return inImmediateTransaction(this.db, () => {
      this.fail.run(status, error, now, head.deliveryId);
      return this.promoteNext(head, now);
    });
  }

  private promoteNext(head: DueDelivery, now: number): DueDelivery | undefined {
    const next = this.promote.get(head.webhookId, head.sessionKey, head.deliveryId) as (DueRow & { next_attempt_at: number }) | undefined;
    return next && next.next_attempt_at <= now ? due(next) : undefined;
  }

  /** A deleted webhook's pending deliveries fail at once (nothing is sent to it any more). */
  failPending(webhookId: string, reason: string, now: number): void {
    this.db.prepare(`UPDATE deliveries SET state = 'failed', is_head = 0, last_error = ?, next_attempt_at = NULL, last_attempt_at = ? WHERE webhook_id = ? AND state = 'pending'`).run(reason, now, webhookId);
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
