import { describe, expect, it } from 'vitest';
import { publicEventId } from '@switchboard/contracts';
import type { MessageEvent } from '@switchboard/contracts';
import { contextAfter, EMPTY_CONTEXT, toPublicEvent } from './public-events.js';

const messageId = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K';
const sessionId = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const at = '2026-11-21T10:00:00.000Z';
const accepted: MessageEvent = {
  type: 'MessageAccepted', version: 2,
  data: { messageId, accountId: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', sessionId, to: '15551234567', content: { type: 'text', text: 'hi' }, quotedMessageId: null, usageDay: '2026-11-21', acceptedAt: at, idempotencyKeyHash: null },
};
const sent: MessageEvent = { type: 'MessageSent', version: 1, data: { messageId, networkMessageId: 'N1', sentAt: at } };
const delivered: MessageEvent = { type: 'MessageDelivered', version: 1, data: { messageId, deliveredAt: at } };
const read: MessageEvent = { type: 'MessageRead', version: 1, data: { messageId, readAt: at } };
const failed: MessageEvent = { type: 'MessageFailed', version: 1, data: { messageId, code: 'CHAT_NETWORK_ERROR', message: 'dropped', refundable: true, failedAt: at } };

/** The public events of a whole stream, each fact mapped with what came before it. */
function tell(events: MessageEvent[]) {
  let context = EMPTY_CONTEXT;
  return events.map((event, i) => {
    const told = toPublicEvent({ eventId: `src-${i}`, event }, context);
    context = contextAfter(context, event);
    return told;
  });
}

describe('message facts as public events', () => {
  it('tells sent, delivered and read with the session, under ids derived from the facts', () => {
    const told = tell([accepted, sent, delivered, read]);
    expect(told[0]).toBeNull();
    expect(told.slice(1).map((e) => e?.data)).toEqual([
      { messageId, sessionId, status: 'sent', timestamp: at, error: null },
      { messageId, sessionId, status: 'delivered', timestamp: at, error: null },
      { messageId, sessionId, status: 'read', timestamp: at, error: null },
    ]);
    expect(told[1]?.id).toBe(publicEventId('src-1', 'message.status'));
  });

  it('never goes backwards: a delivery receipt after the read is not told', () => {
    expect(tell([accepted, sent, read, delivered]).map((e) => (e?.data as { status?: string } | undefined)?.status ?? null)).toEqual([null, 'sent', 'read', null]);
  });

  it('tells a failure with its error', () => {
    expect(tell([accepted, failed])[1]?.data).toEqual({ messageId, sessionId, status: 'failed', timestamp: at, error: { code: 'CHAT_NETWORK_ERROR', message: 'dropped' } });
  });

  it('tells nothing for a stream whose acceptance it has not seen', () => {
    expect(tell([sent])).toEqual([null]);
  });
});
