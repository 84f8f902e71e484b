import type { DatabaseSync } from 'node:sqlite';
import { messageStream, sessionStream } from '@switchboard/contracts';
import type { MessageEvent, SessionEvent } from '@switchboard/contracts';
import type { EventStore, NewEvent } from '@switchboard/eventstore';
import { ProjectionRunner, eventMetadata, openReadModelDatabase, toNewEvent } from '@switchboard/service-kit';
import type { ServiceReadModels } from '@switchboard/service-kit';

// Sessions and messages written as the services write them (contract events through the stores),
// and the services' read models kept by their own projections, as a running server keeps them.

export const ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0AAA';
const AT = new Date('2026-11-21T10:00:00.000Z');
const iso = (offsetMs: number) => new Date(AT.getTime() + offsetMs).toISOString();
const meta = (offsetMs: number) => eventMetadata({ accountId: ACCOUNT, now: new Date(AT.getTime() + offsetMs) });

export const sessionId = (i: number) => `ses_01JD8Z6Q9V4N2C3B5X7M${String(i).padStart(6, '0')}`;
export const messageId = (i: number) => `msg_01JD8Z7A1B2C3D4E5F6G${String(i).padStart(6, '0')}`;

/** Session `i`: created, its QR code issued, connected. */
export async function writeSession(store: EventStore, i: number): Promise<void> {
  const id = sessionId(i);
  const events: SessionEvent[] = [
    { type: 'SessionCreated', version: 1, data: { sessionId: id, accountId: ACCOUNT, name: `Shop ${i}`, createdAt: iso(i) } },
    { type: 'QrCodeIssued', version: 1, data: { sessionId: id, sequence: 1, fingerprint: '0123456789abcdef', issuedAt: iso(i + 1), expiresAt: iso(i + 60_000) } },
    { type: 'SessionConnected', version: 1, data: { sessionId: id, phone: `1555${String(i).padStart(7, '0')}`, connectedAt: iso(i + 2) } },
  ];
  await store.append(sessionStream(id), events.map((e, n) => toNewEvent(e, meta(i + n))), { expectedRevision: 'no_stream' });
}

/** Message `i` through session 0: accepted and sent, then (as later appends) delivered and read. */
export function messageLife(i: number): { accepted: NewEvent[]; receipts: NewEvent[] } {
  const id = messageId(i);
  const accepted: MessageEvent[] = [
    { type: 'MessageAccepted', version: 2, data: { messageId: id, accountId: ACCOUNT, sessionId: sessionId(0), to: `1555${String(i).padStart(7, '0')}`,
      content: { type: 'text', text: `Your order ${i} has shipped.` }, quotedMessageId: null, usageDay: '2026-11-21', acceptedAt: iso(i), idempotencyKeyHash: null } },
    { type: 'MessageSent', version: 1, data: { messageId: id, networkMessageId: `3EB0${String(i).padStart(12, '0')}`, sentAt: iso(i + 1), from: '15550000000' } },
  ];
  const receipts: MessageEvent[] = [
    { type: 'MessageDelivered', version: 1, data: { messageId: id, deliveredAt: iso(i + 2) } },
    { type: 'MessageRead', version: 1, data: { messageId: id, readAt: iso(i + 3) } },
  ];
  return { accepted: accepted.map((e) => toNewEvent(e, meta(i))), receipts: receipts.map((e) => toNewEvent(e, meta(i + 2))) };
}

/** Messages `from`..`to` (excluded), each a stream of four facts. */
export async function writeMessages(store: EventStore, from: number, to: number): Promise<bigint> {
  let last = -1n;
  for (let i = from; i < to; i += 1) {
    const { accepted, receipts } = messageLife(i);
    last = (await store.append(messageStream(messageId(i)), [...accepted, ...receipts], { expectedRevision: 'no_stream' })).position;
  }
  return last;
}

/** A service's read models kept as its running process keeps them: the live file, its runners. */
export interface LiveReadModels {
  db: DatabaseSync;
  runners: ProjectionRunner[];
  /** Resolves once every runner has applied the category's head as it is now. */
  caughtUp(): Promise<void>;
  stop(): Promise<void>;
}

export async function keepReadModels(store: EventStore, readModels: ServiceReadModels, dataDir: string): Promise<LiveReadModels> {
  const db = openReadModelDatabase(readModels.service, { dataDir });
  const projections = readModels.projections.map((p) => p.open(db));
  const runners = projections.map((projection) => new ProjectionRunner(store, db, projection));
  for (const runner of runners) await runner.start();
  const caughtUp = async () => {
    for (const [i, runner] of runners.entries()) {
      const head = await store.lastPosition({ category: projections[i]!.category });
      if (head !== undefined) await runner.waitForPosition(head);
    }
  };
  await caughtUp();
  return {
    db, runners, caughtUp,
    stop: async () => {
      for (const runner of runners) await runner.stop();
      db.close();
    },
  };
}

/** Every row of every table a service's projections keep (checkpoints aside), in key order: what its queries can see. */
export function readModelRows(db: DatabaseSync): Record<string, unknown[]> {
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'checkpoints' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[];
  return Object.fromEntries(tables.map(({ name }) => [name, db.prepare(`SELECT * FROM "${name}" ORDER BY 1, 2`).all()]));
}
