import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import type { RecordReceiptCommand, RecordReceiptsCommand, RecordReceiptsReply } from '@switchboard/contracts';
import type { Logger } from '@switchboard/telemetry';
import type { InboundEvent } from '../src/chat/index.js';
import { JetStreamMessagingOutbox } from '../src/outbox/jetstream-messaging-outbox.js';
import type { JetStreamMessagingOutboxOptions } from '../src/outbox/jetstream-messaging-outbox.js';
import type { MessagingOutbox } from '../src/outbox/messaging-outbox.js';
import { SqliteMessagingOutbox } from '../src/outbox/sqlite-messaging-outbox.js';

// Receipts and received messages on their way to messaging: what the outbox specs share.
export const NATS_URL = process.env['SWITCHBOARD_NATS_URL'] ?? 'nats://127.0.0.1:4222';
export const quiet = { error() {}, warn() {}, info() {}, debug() {}, child: () => quiet } as unknown as Logger;
export const noMedia = { put: async () => 'unused' };
export const ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
export const OTHER_ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E2G';
export const SESSION = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
/** What messaging answers (the forwarder checks replies against the contract). */
export const receiptRecorded = { messageId: null, applied: true };
/**
 * Messaging's `recordReceipts`, stubbed: `record` runs for each receipt of a call, in order; a
 * throw fails the whole call, as it does there.
 */
export function recordReceiptsWith(record: (receipt: RecordReceiptCommand) => void): (message: { data: unknown }) => RecordReceiptsReply {
  return (message) => {
    const { receipts } = message.data as RecordReceiptsCommand;
    receipts.forEach(record);
    return { results: receipts.map(() => receiptRecorded) };
  };
}
export const inboundRecorded = { messageId: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K', recorded: true };
export const receipt = (n: number): RecordReceiptCommand => ({
  accountId: ACCOUNT, sessionId: SESSION, networkMessageId: `3EB0${String(n).padStart(8, '0')}`, receipt: 'read', at: '2026-01-01T00:00:00.000Z',
});
export const inbound: InboundEvent = { id: '3EB0INBOUND1', from: '15550001111', sentAt: new Date('2026-01-01T00:00:00.000Z'), content: { type: 'text', text: 'hello' } } as InboundEvent;

export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > giveUpAt) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Where an outbox lives, for one test: a fresh place, opened as each (re)started process opens it. */
export interface OutboxPlace {
  /** An outbox on the place; closing it ends that "process" (its NATS connection too). */
  open(): Promise<MessagingOutbox>;
  remove(): Promise<void>;
}

/** A SQLite file in a temporary directory (the embedded mode). */
export function sqlitePlace(): OutboxPlace {
  const dir = mkdtempSync(join(tmpdir(), 'sb-outbox-'));
  return {
    open: async () => new SqliteMessagingOutbox(join(dir, 'messaging-outbox.sqlite')),
    remove: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A stream of its own on the shared NATS server (the distributed mode); each open is a replica with its own connection. */
export function jetStreamPlace(options: JetStreamMessagingOutboxOptions = {}): OutboxPlace & {
  names: JetStreamMessagingOutboxOptions;
  openOn(connection: NatsConnection): Promise<MessagingOutbox>;
} {
  const id = randomBytes(6).toString('hex');
  const names = { stream: `TEST_OUTBOX_${id}`, subject: `test.outbox.${id}`, ...options };
  const openOn = (connection: NatsConnection) => JetStreamMessagingOutbox.open(connection, quiet, names);
  return {
    names,
    openOn,
    open: async () => {
      const connection = await connect({ servers: NATS_URL, name: `outbox-test-${id}` });
      const outbox = await openOn(connection);
      return {
        add: (entry) => outbox.add(entry),
        take: (max, signal) => outbox.take(max, signal),
        backlog: () => outbox.backlog(),
        close: () => outbox.close().finally(() => connection.close()),
      };
    },
    remove: async () => {
      const connection = await connect({ servers: NATS_URL, name: `outbox-test-${id}-cleanup` });
      const jsm = await jetstreamManager(connection);
      await jsm.streams.delete(names.stream).catch(() => undefined);
      await connection.close();
    },
  };
}
