import { InProcessBus } from '@switchboard/bus';
import { ApiError, MessagingSubjects } from '@switchboard/contracts';
import type { RecordReceiptsCommand } from '@switchboard/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MessagingForwarder } from '../src/connections/messaging-forwarder.js';
import type { OutboxPlace } from './messaging-outbox-fixtures.js';
import { ACCOUNT, OTHER_ACCOUNT, SESSION, inbound, inboundRecorded, jetStreamPlace, noMedia, quiet, receipt, recordReceiptsWith, sqlitePlace, until } from './messaging-outbox-fixtures.js';

// The same behaviours in both modes: a SQLite file (embedded), a JetStream work queue shared by replicas (distributed).
describe.each([
  { mode: 'SQLite', place: sqlitePlace },
  { mode: 'JetStream', place: () => jetStreamPlace() },
])('receipts and received messages to messaging, through the durable outbox ($mode)', ({ place: newPlace }) => {
  let place: OutboxPlace;
  let bus: InProcessBus;

  beforeEach(() => {
    place = newPlace();
    bus = new InProcessBus({ logger: quiet });
  });
  afterEach(async () => {
    await bus.close();
    await place.remove();
  });

  it('keeps what comes while no messaging process answers, however long, and records it once one does', async () => {
    const outbox = await place.open();
    const forwarder = new MessagingForwarder(bus, outbox, noMedia, quiet);
    forwarder.start();
    for (let i = 0; i < 5; i++) forwarder.receipt(receipt(i));
    // Longer than the 40 s the old retries lasted is not waited for here; what matters is that
    // nothing is given up while messaging is away: the entries are still in the outbox.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await outbox.backlog()).toBe(5);

    const recorded = new Map<string, unknown>();
    await bus.subscribe(MessagingSubjects.recordReceipts.subject, recordReceiptsWith((command) => recorded.set(command.networkMessageId, command)));
    await until(() => recorded.size === 5);
    expect([...recorded.values()]).toEqual(expect.arrayContaining([0, 1, 2, 3, 4].map(receipt)));
    await forwarder.stop();
    await outbox.close();
    const reopened = await place.open();
    await until(async () => (await reopened.backlog()) === 0);
    await reopened.close();
  });

  it('sends again after a restart what the previous process had heard but messaging had not recorded', async () => {
    const first = await place.open();
    const before = new MessagingForwarder(bus, first, noMedia, quiet);
    before.start();
    before.receipt(receipt(1));
    await before.inbound(ACCOUNT, SESSION, '15559990000', inbound);
    await until(async () => (await first.backlog()) === 2);
    // The process ends without messaging having answered (no responder yet).
    await before.stop();
    await first.close();

    const recorded = new Map<string, { subject: string; data: unknown }>();
    await bus.subscribe(MessagingSubjects.recordReceipts.subject, recordReceiptsWith((command) => recorded.set('receipt', { subject: 'receipt', data: command })));
    await bus.subscribe(MessagingSubjects.recordInbound.subject, (m) => {
      recorded.set('inbound', { subject: 'inbound', data: m.data });
      return inboundRecorded;
    });
    const second = await place.open();
    const after = new MessagingForwarder(bus, second, noMedia, quiet);
    after.start();
    await until(() => recorded.size === 2);
    expect([...recorded.values()]).toEqual(expect.arrayContaining([
      { subject: 'receipt', data: receipt(1) },
      { subject: 'inbound', data: expect.objectContaining({ networkMessageId: '3EB0INBOUND1', from: '15550001111', to: '15559990000', content: { type: 'text', text: 'hello' } }) },
    ]));
    await after.stop();
    await until(async () => (await second.backlog()) === 0);
    await second.close();
  });

  it('drops an entry messaging refuses for good (a 4xx-class error), and keeps one it failed on (5xx)', async () => {
    const outbox = await place.open();
    const forwarder = new MessagingForwarder(bus, outbox, noMedia, quiet);
    /** Calls that carried each receipt alone (a refused call of several is split into calls of one). */
    const alone = new Map<string, number>();
    const recorded: string[] = [];
    await bus.subscribe(MessagingSubjects.recordReceipts.subject, (message) => {
      const { receipts } = message.data as RecordReceiptsCommand;
      // As messaging does: a receipt it refuses refuses the whole call.
      if (receipts.some((r) => r.networkMessageId === receipt(1).networkMessageId)) {
        if (receipts.length === 1) alone.set(receipts[0]!.networkMessageId, (alone.get(receipts[0]!.networkMessageId) ?? 0) + 1);
        throw new ApiError('VALIDATION_ERROR');
      }
      const [only] = receipts;
      const attempt = (alone.get(only!.networkMessageId) ?? 0) + 1;
      alone.set(only!.networkMessageId, attempt);
      if (attempt < 3) throw new ApiError('INTERNAL_ERROR');
      return recordReceiptsWith((r) => recorded.push(r.networkMessageId))(message);
    });
    forwarder.start();
    forwarder.receipt(receipt(1));
    forwarder.receipt(receipt(2));
    await until(() => recorded.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The refused one was asked alone once, then dropped; the other recorded on its third try.
    expect(alone.get(receipt(1).networkMessageId)).toBe(1);
    expect(alone.get(receipt(2).networkMessageId)).toBe(3);
    expect(recorded).toEqual([receipt(2).networkMessageId]);
    await until(async () => (await outbox.backlog()) === 0, 2_000);
    await forwarder.stop();
    await outbox.close();
  });

  it('keeps sending while one call waits long (a receipt messaging cannot match yet): that call holds one place, not every receipt in it', async () => {
    const outbox = await place.open();
    const forwarder = new MessagingForwarder(bus, outbox, noMedia, quiet);
    const recorded = new Set<string>();
    let slowCalls = 0;
    await bus.subscribe(MessagingSubjects.recordReceipts.subject, async (message) => {
      const answer = recordReceiptsWith(({ networkMessageId }) => recorded.add(networkMessageId))(message);
      const { receipts } = message.data as RecordReceiptsCommand;
      // The call carrying receipt 0 answers only after 4 s, as messaging does for an id it does not know.
      if (receipts.some((r) => r.networkMessageId === receipt(0).networkMessageId)) {
        slowCalls++;
        await new Promise((resolve) => setTimeout(resolve, 4_000));
      }
      return answer;
    });
    forwarder.start();
    for (let i = 0; i < 32; i++) forwarder.receipt(receipt(i));
    await until(() => slowCalls === 1 && recorded.size === 32);
    const startedAt = Date.now();
    for (let i = 32; i < 132; i++) forwarder.receipt(receipt(i));
    await until(() => recorded.size === 132, 10_000);
    // Recorded while the slow call was still out.
    expect(Date.now() - startedAt).toBeLessThan(3_000);
    await forwarder.stop();
    await outbox.close();
  });

  it('sends the receipts of a burst together, a call per account: fewer calls than receipts, each recorded once', async () => {
    const outbox = await place.open();
    const forwarder = new MessagingForwarder(bus, outbox, noMedia, quiet);
    const calls: RecordReceiptsCommand[] = [];
    const recorded = new Map<string, number>();
    await bus.subscribe(MessagingSubjects.recordReceipts.subject, (message) => {
      calls.push(message.data as RecordReceiptsCommand);
      return recordReceiptsWith(({ networkMessageId }) => recorded.set(networkMessageId, (recorded.get(networkMessageId) ?? 0) + 1))(message);
    });
    forwarder.start();
    // Every third receipt is another account's.
    for (let i = 0; i < 100; i++) forwarder.receipt(i % 3 === 0 ? { ...receipt(i), accountId: OTHER_ACCOUNT } : receipt(i));
    await until(() => recorded.size === 100);
    expect([...recorded.values()].every((times) => times === 1)).toBe(true);
    expect(calls.length).toBeLessThan(100);
    expect(calls.every((call) => call.receipts.every((r) => r.accountId === call.accountId))).toBe(true);
    const sizes = calls.map((call) => call.receipts.length);
    expect(Math.max(...sizes)).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(64);
    await until(async () => (await outbox.backlog()) === 0);
    await forwarder.stop();
    await outbox.close();
  });
});
