import { describe, expect, it } from 'vitest';
import type { MessageEvent } from '@switchboard/contracts';
import { specFor } from '@switchboard/service-kit/testing';
import type { MessageCommand } from './commands.js';
import { decide } from './decide.js';
import { MessageNotAccepted } from './errors.js';
import { evolve } from './evolve.js';
import { initialState } from './state.js';
import type { Message } from './state.js';

const given = specFor<MessageCommand, Message, MessageEvent>({ decide, evolve, initial: initialState });

const ID = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K';
const T0 = '2026-11-21T10:00:00.000Z';
const T1 = '2026-11-21T10:00:01.000Z';
const T2 = '2026-11-21T10:00:02.000Z';
const T3 = '2026-11-21T10:00:03.000Z';

const acceptCommand: MessageCommand = {
  type: 'AcceptMessage', messageId: ID, accountId: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R',
  to: '15551234567', content: { type: 'text', text: 'hi' }, quotedMessageId: null, idempotencyKeyHash: null, usageDay: '2026-11-21', now: new Date(T0),
};
const accepted: MessageEvent = {
  type: 'MessageAccepted', version: 2,
  data: {
    messageId: ID, accountId: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', to: '15551234567',
    content: { type: 'text', text: 'hi' }, quotedMessageId: null, idempotencyKeyHash: null, usageDay: '2026-11-21', acceptedAt: T0,
  },
};
const sent: MessageEvent = { type: 'MessageSent', version: 1, data: { messageId: ID, networkMessageId: 'NET1', sentAt: T1 } };
const delivered: MessageEvent = { type: 'MessageDelivered', version: 1, data: { messageId: ID, deliveredAt: T2 } };
const read: MessageEvent = { type: 'MessageRead', version: 1, data: { messageId: ID, readAt: T3 } };
const failedRefundable: MessageEvent = {
  type: 'MessageFailed', version: 1,
  data: { messageId: ID, code: 'RECIPIENT_NOT_ON_CHAT_NETWORK', message: 'not on network', refundable: true, failedAt: T1 },
};
const refunded: MessageEvent = { type: 'MessageQuotaRefunded', version: 1, data: { messageId: ID, usageDay: '2026-11-21', refundedAt: T2 } };

const markSent: MessageCommand = { type: 'RecordSent', networkMessageId: 'NET1', now: new Date(T1) };
const deliveredReceipt: MessageCommand = { type: 'RecordReceipt', receipt: 'delivered', now: new Date(T2) };
const readReceipt: MessageCommand = { type: 'RecordReceipt', receipt: 'read', now: new Date(T3) };
const failNotOnNetwork: MessageCommand = { type: 'FailMessage', code: 'RECIPIENT_NOT_ON_CHAT_NETWORK', message: 'not on network', refundable: true, now: new Date(T1) };
const refund: MessageCommand = { type: 'RecordRefund', now: new Date(T2) };

describe('accepting', () => {
  it('accepts a new message as pending', () => given([]).when(acceptCommand).then([accepted]));
  it('accepts the same message id only once', () => given([accepted]).when(acceptCommand).then([]));
  it('starts pending with no delivery or read time', () =>
    given([]).when(acceptCommand).thenState({ status: 'pending', messageId: ID, acceptedAt: T0 }));
  it('records a request to show "typing…" first, and keeps it for the delivery (also after a restart)', () => {
    const typed = { ...accepted, data: { ...accepted.data, typing: true } } as MessageEvent;
    given([]).when({ ...acceptCommand, typing: true }).then([typed]);
    given([typed]).when(markSent).thenState({ status: 'sent', typing: true });
    given([]).when({ ...acceptCommand, typing: false }).then([accepted]);
  });
});

describe('sending', () => {
  it('records the network acknowledgement', () => given([accepted]).when(markSent).then([sent]));
  it('records the linked number that sent it, when sessions names it', () =>
    given([accepted]).when({ ...markSent, from: '15550001111' }).then([{ ...sent, data: { ...sent.data, from: '15550001111' } } as MessageEvent]));
  it('records it once when a redelivery is answered again', () => given([accepted, sent]).when(markSent).then([]));
  it('does not send a message that already failed', () => given([accepted, failedRefundable]).when(markSent).then([]));
  it('refuses facts about a message never accepted', () => given([]).when(markSent).thenThrows(MessageNotAccepted));
});

describe('receipts move status forwards only', () => {
  it('sent → delivered', () => given([accepted, sent]).when(deliveredReceipt).then([delivered]));
  it('delivered → read', () => given([accepted, sent, delivered]).when(readReceipt).then([read]));
  it('sent → read directly, which implies delivery at the read time', () =>
    given([accepted, sent]).when(readReceipt).thenState({ status: 'read', deliveredAt: T3, readAt: T3 }));
  it('a late delivered after read changes nothing', () => given([accepted, sent, read]).when(deliveredReceipt).then([]));
  it('a duplicate delivered changes nothing', () => given([accepted, sent, delivered]).when(deliveredReceipt).then([]));
  it('a duplicate read changes nothing', () => given([accepted, sent, delivered, read]).when(readReceipt).then([]));
  it('keeps the first delivery time when read later', () =>
    given([accepted, sent, delivered]).when(readReceipt).thenState({ status: 'read', deliveredAt: T2, readAt: T3 }));
  it('ignores receipts for a failed message', () => given([accepted, failedRefundable]).when(readReceipt).then([]));
  it('ignores receipts before the acknowledgement is recorded', () => given([accepted]).when(deliveredReceipt).then([]));
});

describe('failing and refunds', () => {
  it('fails a pending message with its code, refund due', () =>
    given([accepted]).when(failNotOnNetwork).thenState({ status: 'failed', failure: { code: 'RECIPIENT_NOT_ON_CHAT_NETWORK' }, refundDue: true }));
  it('never fails a message the network has', () => given([accepted, sent]).when(failNotOnNetwork).then([]));
  it('fails only once', () => given([accepted, failedRefundable]).when(failNotOnNetwork).then([]));
  it('refunds a refundable failure once', () => given([accepted, failedRefundable]).when(refund).then([refunded]));
  it('does not refund twice', () => given([accepted, failedRefundable, refunded]).when(refund).then([]));
  it('does not refund a message that reached the network', () => given([accepted, sent]).when(refund).then([]));
  it('does not refund a failure that may have reached the network', () => {
    const unknownOutcome: MessageEvent = { ...failedRefundable, data: { ...failedRefundable.data, code: 'CHAT_NETWORK_ERROR', refundable: false } } as MessageEvent;
    given([accepted, unknownOutcome]).when(refund).then([]);
  });
});

describe('status never goes backwards, whatever order facts arrive in', () => {
  const permutations = <T>(items: T[]): T[][] =>
    items.length <= 1 ? [items] : items.flatMap((item, i) => permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]));
  const rank = { absent: -1, pending: 0, sent: 1, delivered: 2, read: 3, failed: 4 } as const;

  it.each(permutations([sent, delivered, read, failedRefundable]).map((order) => [order.map((e) => e.type).join(' → '), order]))(
    'accepted → %s',
    (_name, order) => {
      let state: Message = evolve(initialState, accepted);
      for (const event of order as MessageEvent[]) {
        const next = evolve(state, event);
        if (next.status !== state.status) expect(rank[next.status]).toBeGreaterThan(rank[state.status]);
        if (state.status !== 'pending') expect(next.status === 'failed').toBe(state.status === 'failed');
        state = next;
      }
    },
  );
});
