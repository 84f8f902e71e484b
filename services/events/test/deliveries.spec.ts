import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PublicEvent } from '@switchboard/contracts';
import { loadConfig } from '@switchboard/service-kit';
import { openDispatchDatabase } from '../src/store/database.js';
import { DeliveryStore } from '../src/store/deliveries.js';

const ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const event = (n: number): PublicEvent => ({ id: `evt_${String(n).padStart(26, '0')}`, type: 'webhook.test', timestamp: new Date(0).toISOString(), data: { webhookId: 'wh' } });

describe('delivery queue (a real SQLite file)', () => {
  let dataDir: string;
  let db: DatabaseSync;
  let deliveries: DeliveryStore;
  const open = () => {
    db = openDispatchDatabase(loadConfig({ SWITCHBOARD_DATA_DIR: dataDir }));
    deliveries = new DeliveryStore(db);
  };

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sb-deliveries-'));
    open();
  });
  afterEach(() => {
    if (db.isOpen) db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('queues a page of events in one transaction: all of them in order, or none when one cannot be queued', () => {
    deliveries.enqueueAll('wh_a', ACCOUNT, [0, 1, 2].map((n) => ({ event: event(n), sessionKey: 'ses_1' })), 1_000);
    expect(deliveries.dueHeads('wh_a', 1_000, 10).map((h) => h.eventId)).toEqual([event(0).id]);
    expect(deliveries.pendingCount()).toBe(3);
    // A body that cannot be written (a BigInt does not serialise) in the middle of the page.
    const unwritable = { ...event(11), data: { webhookId: 'wh', n: 1n } } as unknown as PublicEvent;
    const page = [event(10), unwritable, event(12)].map((e) => ({ event: e, sessionKey: 'ses_2' }));
    expect(() => deliveries.enqueueAll('wh_a', ACCOUNT, page, 1_000)).toThrow();
    expect(deliveries.pendingCount()).toBe(3);
  });

  it('offers one head per session, and the next of a session only once the one before it succeeded', () => {
    for (let i = 0; i < 3; i++) deliveries.enqueue('wh_a', ACCOUNT, event(i), 'ses_1', 1_000);
    deliveries.enqueue('wh_a', ACCOUNT, event(10), 'ses_2', 1_000);
    deliveries.enqueue('wh_b', ACCOUNT, event(20), 'ses_1', 1_000);

    const heads = deliveries.dueHeads('wh_a', 1_000, 10);
    expect(heads.map((h) => [h.sessionKey, h.eventId])).toEqual([['ses_1', event(0).id], ['ses_2', event(10).id]]);

    const second = deliveries.succeeded(heads[0]!, 204, 1_001);
    expect(second?.eventId).toBe(event(1).id);
    expect(deliveries.dueHeads('wh_a', 1_001, 10).map((h) => h.eventId)).toEqual([event(1).id, event(10).id]);
    const third = deliveries.succeeded(second!, 200, 1_002);
    expect(third?.eventId).toBe(event(2).id);
    expect(deliveries.succeeded(third!, 200, 1_003)).toBeUndefined();
    expect(deliveries.dueHeads('wh_a', 1_003, 10).map((h) => h.eventId)).toEqual([event(10).id]);
    // Another webhook's queue of the same session is its own.
    expect(deliveries.dueHeads('wh_b', 1_003, 10).map((h) => h.eventId)).toEqual([event(20).id]);
  });

  it('keeps a session waiting behind a head that failed until its retry is due; a final failure lets the next go', () => {
    deliveries.enqueue('wh_a', ACCOUNT, event(1), 'ses_1', 1_000);
    deliveries.enqueue('wh_a', ACCOUNT, event(2), 'ses_1', 1_000);
    const [head] = deliveries.dueHeads('wh_a', 1_000, 10);
    expect(deliveries.attemptFailed(head!, 500, 'http_500', 1_000, 6_000)).toBeUndefined();
    expect(deliveries.dueHeads('wh_a', 5_999, 10)).toEqual([]);

    const [again] = deliveries.dueHeads('wh_a', 6_000, 10);
    expect(again).toMatchObject({ eventId: event(1).id, attempts: 1 });
    const next = deliveries.attemptFailed(again!, null, 'timeout', 6_000, null);
    expect(next?.eventId).toBe(event(2).id);
    expect(deliveries.page('wh_a', 'failed', 10, null).deliveries.map((d) => [d.eventId, d.attempts, d.lastError])).toEqual([[event(1).id, 2, 'timeout']]);
  });

  it('a new delivery behind a pending one is not a head; behind a finished one it is', () => {
    deliveries.enqueue('wh_a', ACCOUNT, event(1), 'ses_1', 1_000);
    const [head] = deliveries.dueHeads('wh_a', 1_000, 10);
    deliveries.enqueue('wh_a', ACCOUNT, event(2), 'ses_1', 1_000);
    expect(deliveries.dueHeads('wh_a', 1_000, 10).map((h) => h.eventId)).toEqual([event(1).id]);
    deliveries.succeeded(head!, 200, 1_000);
    deliveries.enqueue('wh_a', ACCOUNT, event(3), 'ses_2', 1_000);
    expect(deliveries.dueHeads('wh_a', 1_000, 10).map((h) => h.eventId)).toEqual([event(2).id, event(3).id]);
  });

  it('a deleted webhook fails every pending delivery, heads and the rest', () => {
    for (let i = 0; i < 3; i++) deliveries.enqueue('wh_a', ACCOUNT, event(i), 'ses_1', 1_000);
    deliveries.failPending('wh_a', 'webhook_deleted', 2_000);
    expect(deliveries.dueHeads('wh_a', 2_000, 10)).toEqual([]);
    expect(deliveries.pendingCount()).toBe(0);
  });

  it('a file written before heads were marked gets them marked once, oldest pending per session', () => {
    db.close();
    const file = join(dataDir, 'events', 'dispatch.sqlite');
    const old = new DatabaseSync(file);
    old.exec('DROP INDEX deliveries_heads; ALTER TABLE deliveries DROP COLUMN is_head;');
    const insert = old.prepare(`INSERT INTO deliveries (webhook_id, account_id, event_id, event_type, session_key, body, state, next_attempt_at, created_at) VALUES (?, ?, ?, 'webhook.test', ?, '{}', ?, ?, 1000)`);
    insert.run('wh_a', ACCOUNT, event(1).id, 'ses_1', 'succeeded', null);
    insert.run('wh_a', ACCOUNT, event(2).id, 'ses_1', 'pending', 1_000);
    insert.run('wh_a', ACCOUNT, event(3).id, 'ses_1', 'pending', 1_000);
    insert.run('wh_a', ACCOUNT, event(4).id, 'ses_2', 'pending', 1_000);
    old.close();

    open();
    expect(deliveries.dueHeads('wh_a', 1_000, 10).map((h) => h.eventId)).toEqual([event(2).id, event(4).id]);
  });
});
