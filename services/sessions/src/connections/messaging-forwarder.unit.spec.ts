import { InProcessBus } from '@switchboard/bus';
import { MessagingSubjects } from '@switchboard/contracts';
import type { RecordReceiptCommand } from '@switchboard/contracts';
import type { Logger } from '@switchboard/telemetry';
import { describe, expect, it } from 'vitest';
import type { MessagingOutbox, OutboxDelivery } from '../outbox/messaging-outbox.js';
import { MessagingForwarder } from './messaging-forwarder.js';

const quiet = { error() {}, warn() {}, info() {}, debug() {}, child: () => quiet } as unknown as Logger;
const receipt = (n: number): RecordReceiptCommand => ({
  accountId: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', networkMessageId: `3EB0${n}`, receipt: 'read', at: '2026-01-01T00:00:00.000Z',
});

/** An outbox that hands out `entries` in one take, runs `afterHandedOut` in the same turn, then has nothing more. */
function oneTakeOutbox(entries: RecordReceiptCommand[], afterHandedOut: () => void) {
  const outcomes = new Map<string, string>();
  let taken = false;
  const outbox: MessagingOutbox = {
    add: async () => undefined,
    async *take(_max: number, signal: AbortSignal): AsyncIterable<OutboxDelivery> {
      if (taken) return void (await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })));
      taken = true;
      for (const command of entries) {
        const id = command.networkMessageId;
        yield { entry: { subject: 'recordReceipt', command }, done: () => outcomes.set(id, 'done'), drop: () => outcomes.set(id, 'dropped'), retryLater: (ms) => outcomes.set(id, `retry after ${ms} ms`) };
      }
      afterHandedOut();
    },
    backlog: async () => 0,
    close: async () => undefined,
  };
  return { outbox, outcomes };
}

describe('the messaging forwarder', () => {
  it('hands back to the outbox, unsent, the receipts it had gathered when it stops in the same turn', async () => {
    const bus = new InProcessBus({ logger: quiet });
    const calls: unknown[] = [];
    await bus.subscribe(MessagingSubjects.recordReceipts.subject, (message) => {
      calls.push(message.data);
      return { results: [] };
    });
    let stopping: Promise<void> | undefined;
    const { outbox, outcomes } = oneTakeOutbox([receipt(1), receipt(2), receipt(3)], () => (stopping = forwarder.stop()));
    const forwarder = new MessagingForwarder(bus, outbox, { put: async () => 'unused' }, quiet);
    forwarder.start();
    await expect.poll(() => stopping !== undefined).toBe(true);
    await stopping;
    await new Promise((resolve) => setImmediate(resolve));
    expect(Object.fromEntries(outcomes)).toEqual({ '3EB01': 'retry after 0 ms', '3EB02': 'retry after 0 ms', '3EB03': 'retry after 0 ms' });
    expect(calls).toEqual([]);
    await bus.close();
  });

  it("sends an account's receipts handed out in separate turns, within RECEIPT_GATHER_MS, in one call", async () => {
    const bus = new InProcessBus({ logger: quiet });
    const calls: { receipts: RecordReceiptCommand[] }[] = [];
    await bus.subscribe(MessagingSubjects.recordReceipts.subject, (message) => {
      calls.push(message.data as { receipts: RecordReceiptCommand[] });
      return { results: [] };
    });
    const outcomes = new Map<string, string>();
    const turns = [[receipt(1)], [receipt(2), receipt(3)]];
    const outbox: MessagingOutbox = {
      add: async () => undefined,
      async *take(_max: number, signal: AbortSignal): AsyncIterable<OutboxDelivery> {
        const commands = turns.shift();
        if (commands === undefined) return void (await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true })));
        // Each take in a turn of its own, as receipts read from the network come.
        await new Promise((resolve) => setImmediate(resolve));
        for (const command of commands) {
          const id = command.networkMessageId;
          yield { entry: { subject: 'recordReceipt', command }, done: () => outcomes.set(id, 'done'), drop: () => outcomes.set(id, 'dropped'), retryLater: () => outcomes.set(id, 'retry') };
        }
      },
      backlog: async () => 0,
      close: async () => undefined,
    };
    const forwarder = new MessagingForwarder(bus, outbox, { put: async () => 'unused' }, quiet);
    forwarder.start();
    await expect.poll(() => outcomes.size).toBe(3);
    expect(Object.fromEntries(outcomes)).toEqual({ '3EB01': 'done', '3EB02': 'done', '3EB03': 'done' });
    expect(calls.map((call) => call.receipts.map((r) => r.networkMessageId))).toEqual([['3EB01', '3EB02', '3EB03']]);
    await forwarder.stop();
    await bus.close();
  });

  it('tries a received message again when the outbox cannot take it at once (the network will not send it again)', async () => {
    const bus = new InProcessBus({ logger: quiet });
    const added: unknown[] = [];
    let failures = 2;
    const outbox: MessagingOutbox = {
      add: async (entry) => {
        if (failures-- > 0) throw new Error('outbox briefly away');
        added.push(entry);
      },
      async *take(_max: number, signal: AbortSignal): AsyncIterable<OutboxDelivery> {
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
      },
      backlog: async () => 0,
      close: async () => undefined,
    };
    const forwarder = new MessagingForwarder(bus, outbox, { put: async () => 'unused' }, quiet);
    forwarder.start();
    const inbound = { id: '3EB0AA', from: '15550001111', sentAt: new Date(0), content: { type: 'text' as const, text: 'hello' } };
    await forwarder.inbound('acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', '15550002222', inbound);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ subject: 'recordInbound', command: { networkMessageId: '3EB0AA', content: { type: 'text', text: 'hello' } } });
    await forwarder.stop();
    await bus.close();
  });
});
