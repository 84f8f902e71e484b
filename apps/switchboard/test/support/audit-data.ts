import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { accountStream, messageStream, sessionStream, usageStream } from '@switchboard/contracts';
import { SqliteEventStore } from '@switchboard/eventstore';
import type { NewEvent } from '@switchboard/eventstore';

// A data dir written as the services write it (each service's events through its own store, with
// the metadata they carry), for the audit commands to read back.

export const A = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0AAA';
export const B = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0BBB';
export const S = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0SSS';
const SB = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0SBB';
export const LINKED = '15550000001';
export const C1 = '15551110001';
export const C2 = '15551110002';
export const id = (name: string) => `msg_01JD8Z7A1B2C3D4E5F6G7H8${name}`;
export const [M1, M2, M3, R1, R2, R3, MB] = ['M01', 'M02', 'M03', 'R01', 'R02', 'R03', 'MB1'].map(id) as [string, string, string, string, string, string, string];
export const DAY = '2026-11-21';
const AT = '2026-11-21T10:00:00.000Z';

const meta = (accountId: string, request: string, cause = request) => ({ accountId, correlationId: request, causationId: cause, occurredAt: AT, schemaVersion: 1 });
const event = (type: string, data: object, metadata: Record<string, unknown>): NewEvent => ({ type, data, metadata });

function accepted(messageId: string, accountId: string, sessionId: string, to: string, text: string): NewEvent {
  return event('MessageAccepted', {
    messageId, accountId, sessionId, to, content: { type: 'text', text }, quotedMessageId: null, usageDay: DAY, acceptedAt: AT, idempotencyKeyHash: 'f'.repeat(64),
  }, { ...meta(accountId, `req-${messageId}`), schemaVersion: 2 });
}

function received(messageId: string, from: string, text: string): NewEvent {
  return event('MessageReceived', {
    messageId, accountId: A, sessionId: S, networkMessageId: `3EB0${messageId.slice(-3)}`, from, to: LINKED, sentAt: AT, receivedAt: AT,
    content: { type: 'text', text }, quotedNetworkId: null, quotedMessageId: null,
  }, meta(A, `chat-inbound:${messageId}`));
}

const sent = (messageId: string, accountId = A) => event('MessageSent', { messageId, networkMessageId: `3EB0${messageId.slice(-3)}`, sentAt: AT, from: LINKED }, meta(accountId, `req-${messageId}`));
const receipt = (type: 'MessageDelivered' | 'MessageRead', messageId: string) =>
  event(type, { messageId, [type === 'MessageRead' ? 'readAt' : 'deliveredAt']: AT }, meta(A, `req-${messageId}`, `chat-receipt:${type}:3EB0${messageId.slice(-3)}`));
const reserved = (accountId: string, messageId: string) =>
  event('DailyQuotaReserved', { accountId, day: DAY, messageId, limit: 1000, reservedAt: AT }, meta(accountId, `req-${messageId}`));

/** What `seedAuditData` wrote: the data dir, and a time between the first facts and the rest. */
export interface SeededData {
  dataDir: string;
  /** After M1 was sent, before R1 came: `--from` it leaves the first 8 facts of account A out. */
  midway: string;
}

/**
 * Account A (session S, linked to LINKED): M1 to C1 (sent, delivered, read) with C1's reply R1, M2
 * to C2 with C2's R2, then M3 to C1 (closing M1's reply window) and C1's R3; account B sends MB to
 * C1 through its own session. 19 facts are A's, 8 of them before `midway`.
 */
export async function seedAuditData(): Promise<SeededData> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-audit-data-'));
  let midway = '';
  const quota = new SqliteEventStore(join(dir, 'quota', 'events.sqlite'));
  const sessions = new SqliteEventStore(join(dir, 'sessions', 'events.sqlite'));
  const messaging = new SqliteEventStore(join(dir, 'messaging', 'events.sqlite'));
  const append = async (store: SqliteEventStore, stream: string, ...events: NewEvent[]) => {
    await store.append(stream, events, { expectedRevision: 'any' });
    await sleep(3);
  };
  await append(quota, accountStream(A), event('AccountOpened', { accountId: A, name: 'Acme', plan: 'basic', openedAt: AT }, meta(A, 'req-open')),
    event('ApiKeyIssued', { accountId: A, keyId: 'key_01JD8Z5X0A1B2C3D4E5F6G7H8J', keyHash: 'a'.repeat(64), scopes: ['api'], issuedAt: AT }, meta(A, 'req-open')));
  await append(quota, accountStream(B), event('AccountOpened', { accountId: B, name: null, plan: 'free', openedAt: AT }, meta(B, 'req-open-b')));
  await append(sessions, sessionStream(S), event('SessionCreated', { sessionId: S, accountId: A, name: 'front desk', createdAt: AT }, meta(A, 'req-session')));
  await append(quota, accountStream(A), event('SessionSlotReserved', { accountId: A, sessionId: S, limit: 5, reservedAt: AT }, meta(A, 'req-session')));
  await append(sessions, sessionStream(S), event('SessionConnected', { sessionId: S, phone: LINKED, connectedAt: AT }, meta(A, 'req-session')));
  await append(quota, usageStream(A, DAY), reserved(A, M1));
  await append(messaging, messageStream(M1), accepted(M1, A, S, C1, 'Your order #42 has shipped and arrives tomorrow before noon'));
  await append(messaging, messageStream(M1), sent(M1));
  midway = new Date().toISOString();
  await sleep(3);
  await append(messaging, messageStream(R1), received(R1, C1, 'thanks!'));
  await append(quota, usageStream(A, DAY), reserved(A, M2));
  await append(messaging, messageStream(M2), accepted(M2, A, S, C2, 'Your table for 4 is booked'), sent(M2));
  await append(messaging, messageStream(M1), receipt('MessageDelivered', M1));
  await append(messaging, messageStream(M1), receipt('MessageRead', M1));
  await append(messaging, messageStream(R2), received(R2, C2, 'see you'));
  await append(quota, usageStream(A, DAY), reserved(A, M3));
  await append(messaging, messageStream(M3), accepted(M3, A, S, C1, 'Anything else?'), sent(M3));
  await append(messaging, messageStream(R3), received(R3, C1, 'no, all good'));
  await append(quota, usageStream(B, DAY), reserved(B, MB));
  await append(messaging, messageStream(MB), accepted(MB, B, SB, C1, 'Hello from another account'), sent(MB, B));
  for (const store of [quota, sessions, messaging]) await store.close();
  return { dataDir: dir, midway };
}
