import { DatabaseSync } from 'node:sqlite';
import type { SessionEvent } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';
import { describe, expect, it } from 'vitest';
import { SessionListProjection } from './projection.js';
import { SessionListQueries } from './queries.js';

const alice = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const bob = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1G';
const ids = ['ses_01JD8Z6Q9V4N2C3B5X7M1K0P2A', 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2B', 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2C'] as const;
const minute = (m: number) => `2026-11-21T10:0${m}:00.000Z`;

let position = 0n;
function recorded(event: SessionEvent): RecordedEvent {
  position += 1n;
  return { stream: `session-${event.data.sessionId}`, type: event.type, revision: 0n, position, data: event.data, metadata: { schemaVersion: 1 }, recordedAt: new Date(), id: String(position) };
}
const created = (sessionId: string, accountId: string, m: number, name: string | null = null): SessionEvent => ({
  type: 'SessionCreated', version: 1, data: { sessionId, accountId, name, createdAt: minute(m) },
});

/** The read model after `events`, applied in batches of `batch` (the runner flushes after each). */
function readModel(events: SessionEvent[], batch = events.length) {
  const db = new DatabaseSync(':memory:');
  const projection = new SessionListProjection(db);
  events.forEach((event, i) => {
    projection.apply(recorded(event));
    if ((i + 1) % batch === 0 || i === events.length - 1) projection.flush();
  });
  return Object.assign(new SessionListQueries(db), { rows: () => db.prepare('SELECT * FROM session_list ORDER BY session_id').all() });
}

const [s0, s1, s2] = ids;
const history: SessionEvent[] = [
  created(s0, alice, 0, 'first'),
  created(s1, alice, 1),
  created(s2, bob, 2),
  { type: 'SessionConnected', version: 1, data: { sessionId: s0, phone: '15551234567', connectedAt: minute(3) } },
  { type: 'SessionActivityRecorded', version: 1, data: { sessionId: s0, activity: 'message_sent', at: minute(4) } },
  { type: 'SessionTimedOut', version: 1, data: { sessionId: s1, timedOutAt: minute(5) } },
];

describe('session list read model', () => {
  it('shows a session with its status, name and lastActivity', () => {
    expect(readModel(history).get(alice, s0)).toEqual({ sessionId: s0, status: 'connected', statusReason: null, name: 'first', createdAt: minute(0), lastActivity: minute(4) });
  });

  it('keeps why a session stopped, across a read', () => {
    expect(readModel(history).get(alice, s1)).toMatchObject({ status: 'timeout', statusReason: { code: 'qr_timeout' } });
  });

  it('gives a table of the first version (no reasons) the column, keeping its rows', () => {
    const db = new DatabaseSync(':memory:');
    db.exec('CREATE TABLE session_list (session_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, name TEXT, status TEXT NOT NULL, created_at TEXT NOT NULL, last_activity TEXT NOT NULL)');
    db.prepare('INSERT INTO session_list VALUES (?, ?, NULL, ?, ?, ?)').run(s0, alice, 'connected', minute(0), minute(1));
    new SessionListProjection(db);
    expect(new SessionListQueries(db).get(alice, s0)).toMatchObject({ status: 'connected', statusReason: null });
  });

  it('hides another account\'s session and unknown ids', () => {
    const queries = readModel(history);
    expect(queries.get(alice, s2)).toBeUndefined();
    expect(queries.get(bob, 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2Z')).toBeUndefined();
  });

  it('lists newest first with the total of all matches', () => {
    const page = readModel(history).list({ accountId: alice, limit: 1, offset: 0 });
    expect(page.sessions.map((s) => s.sessionId)).toEqual([s1]);
    expect(page).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(readModel(history).list({ accountId: alice, limit: 10, offset: 1 }).sessions.map((s) => s.sessionId)).toEqual([s0]);
  });

  it('filters by every status', () => {
    const queries = readModel(history);
    expect(queries.list({ accountId: alice, limit: 10, offset: 0, status: 'timeout' }).sessions.map((s) => s.sessionId)).toEqual([s1]);
    expect(queries.list({ accountId: alice, limit: 10, offset: 0, status: 'pending' })).toMatchObject({ sessions: [], total: 0 });
  });

  it('drops a deleted session from gets and lists', () => {
    const deleted: SessionEvent = { type: 'SessionDeleted', version: 1, data: { sessionId: s0, previousStatus: 'connected', loggedOut: true, deletedAt: minute(6) } };
    const queries = readModel([...history, deleted]);
    expect(queries.get(alice, s0)).toBeUndefined();
    expect(queries.list({ accountId: alice, limit: 10, offset: 0 }).total).toBe(1);
  });

  it('finds the sessions a restart must look after, across accounts', () => {
    expect(readModel(history).withStatus(['connected', 'pending'])).toEqual([
      { sessionId: s0, accountId: alice, status: 'connected' },
      { sessionId: s2, accountId: bob, status: 'pending' },
    ]);
  });

  it('writes a batch as applying its events one at a time would', () => {
    const deleted: SessionEvent = { type: 'SessionDeleted', version: 1, data: { sessionId: s2, previousStatus: 'pending', loggedOut: false, deletedAt: minute(6) } };
    const lateActivity: SessionEvent = { type: 'SessionActivityRecorded', version: 1, data: { sessionId: s2, activity: 'message_sent', at: minute(7) } };
    const events = [...history, deleted, lateActivity, created(s2, bob, 8, 'again')];
    const together = readModel(events).rows();
    expect(together).toEqual(readModel(events, 1).rows());
    expect(together).toEqual(readModel(events, 4).rows());
    expect(together.map((row) => (row as { name: string | null }).name)).toEqual(['first', null, 'again']);
  });
});
