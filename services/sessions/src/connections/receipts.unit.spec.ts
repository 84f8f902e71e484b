import { InProcessBus } from '@switchboard/bus';
import { MessagingSubjects } from '@switchboard/contracts';
import type { RecordReceiptCommand } from '@switchboard/contracts';
import type { Logger } from '@switchboard/telemetry';
import { afterEach, describe, expect, it } from 'vitest';
import { ReceiptForwarder } from './receipts.js';

const quiet = { error() {}, warn() {}, info() {}, debug() {}, child: () => quiet } as unknown as Logger;
const receipt: RecordReceiptCommand = { accountId: 'acc_1', sessionId: 'ses_1', networkMessageId: '3EB0AA', receipt: 'read', at: '2026-01-01T00:00:00.000Z' };
let bus: InProcessBus;

afterEach(async () => {
  await bus.close();
});

describe('forwarding receipts to messaging', () => {
  it('keeps a receipt while no messaging process answers (restarting) and records it once one does', async () => {
    bus = new InProcessBus({ logger: quiet });
    const recorded: unknown[] = [];
    const forwarded = new ReceiptForwarder(bus, quiet).forward(receipt);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await bus.subscribe(MessagingSubjects.recordReceipt.subject, (message) => void recorded.push(message.data));
    await forwarded;
    expect(recorded).toEqual([receipt]);
  });
});
