import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InProcessBus } from '@switchboard/bus';
import { ApiError, MessagingSubjects } from '@switchboard/contracts';
import type { RecordReceiptCommand } from '@switchboard/contracts';
import type { Logger } from '@switchboard/telemetry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InboundEvent } from '../src/chat/index.js';
import { MessagingForwarder } from '../src/connections/messaging-forwarder.js';
import { SqliteMessagingOutbox } from '../src/outbox/sqlite-messaging-outbox.js';

const quiet = { error() {}, warn() {}, info() {}, debug() {}, child: () => quiet } as unknown as Logger;
const noMedia = { put: async () => 'unused' };
const ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const SESSION = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
/** What messaging answers (the forwarder checks replies against the contract). */
const receiptRecorded = { messageId: null, applied: true };
const inboundRecorded = { messageId: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K', recorded: true };
const receipt = (n: number): RecordReceiptCommand => ({
  accountId: ACCOUNT, sessionId: SESSION, networkMessageId: `3EB0${String(n).padStart(8, '0')}`, receipt: 'read', at: '2026-01-01T00:00:00.000Z',
});
const inbound: InboundEvent = { id: '3EB0INBOUND1', from: '15550001111', sentAt: new Date('2026-01-01T00:00:00.000Z'), content: { type: 'text', text: 'hello' } } as InboundEvent;

async function until(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > giveUpAt) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('receipts and received messages to messaging, through the durable outbox (SQLite)', () => {
  let dir: string;
  let bus: InProcessBus;
  const path = () => join(dir, 'messaging-outbox.sqlite');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-outbox-'));
    bus = new InProcessBus({ logger: quiet });
  });
  afterEach(async () => {
    await bus.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps what comes while no messaging process answers, however long, and records it once one does', async () => {
    const outbox = new SqliteMessagingOutbox(path());
    const forwarder = new MessagingForwarder(bus, outbox, noMedia, quiet);
    forwarder.start();
    for (let i = 0; i < 5; i++) forwarder.receipt(receipt(i));
    // Longer than the 40 s the old retries lasted is not waited for here; what matters is that
    // nothing is given up while messaging is away: the entries are still in the outbox.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(outbox.pending()).toHaveLength(5);

    const recorded: unknown[] = [];
    await bus.subscribe(MessagingSubjects.recordReceipt.subject, (message) => {
      recorded.push(message.data);
      return receiptRecorded;
    });
    await until(() => recorded.length === 5);
    expect(recorded).toEqual(expect.arrayContaining([0, 1, 2, 3, 4].map(receipt)));
    forwarder.stop();
    await outbox.close();
    expect(new SqliteMessagingOutbox(path()).pending()).toEqual([]);
  });

  it('sends again after a restart what the previous process had heard but messaging had not recorded', async () => {
    const first = new SqliteMessagingOutbox(path());
    const before = new MessagingForwarder(bus, first, noMedia, quiet);
    before.start();
    before.receipt(receipt(1));
    await before.inbound(ACCOUNT, SESSION, '15559990000', inbound);
    // The process ends without messaging having answered (no responder yet).
    before.stop();
    await first.close();

    const recorded: { subject: string; data: unknown }[] = [];
    await bus.subscribe(MessagingSubjects.recordReceipt.subject, (m) => {
      recorded.push({ subject: 'receipt', data: m.data });
      return receiptRecorded;
    });
    await bus.subscribe(MessagingSubjects.recordInbound.subject, (m) => {
      recorded.push({ subject: 'inbound', data: m.data });
      return inboundRecorded;
    });
    const second = new SqliteMessagingOutbox(path());
    const after = new MessagingForwarder(bus, second, noMedia, quiet);
    after.start();
    await until(() => recorded.length === 2);
    expect(recorded).toEqual(expect.arrayContaining([
      { subject: 'receipt', data: receipt(1) },
      { subject: 'inbound', data: expect.objectContaining({ networkMessageId: '3EB0INBOUND1', from: '15550001111', to: '15559990000', content: { type: 'text', text: 'hello' } }) },
    ]));
    after.stop();
    await second.close();
  });

  it('drops an entry messaging refuses for good (a 4xx-class error), and keeps one it failed on (5xx)', async () => {
    const outbox = new SqliteMessagingOutbox(path());
    const forwarder = new MessagingForwarder(bus, outbox, noMedia, quiet);
    const attempts = new Map<string, number>();
    let recorded = 0;
    await bus.subscribe(MessagingSubjects.recordReceipt.subject, (message) => {
      const { networkMessageId } = message.data as RecordReceiptCommand;
      const attempt = (attempts.get(networkMessageId) ?? 0) + 1;
      attempts.set(networkMessageId, attempt);
      if (networkMessageId === receipt(1).networkMessageId) throw new ApiError('VALIDATION_ERROR');
      if (attempt < 3) throw new ApiError('INTERNAL_ERROR');
      recorded++;
      return receiptRecorded;
    });
    forwarder.start();
    forwarder.receipt(receipt(1));
    forwarder.receipt(receipt(2));
    await until(() => recorded === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(attempts.get(receipt(1).networkMessageId)).toBe(1);
    expect(attempts.get(receipt(2).networkMessageId)).toBe(3);
    expect(outbox.pending()).toEqual([]);
    forwarder.stop();
    await outbox.close();
  });
});
