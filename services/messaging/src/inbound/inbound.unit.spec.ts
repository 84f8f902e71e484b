import { describe, expect, it } from 'vitest';
import type { RecordInboundCommand } from '@switchboard/contracts';
import { NOT_RECORDED, decideInbound, evolveInbound } from './decide.js';
import { inboundMessageId } from './inbound-id.js';

const SESSION = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const command: RecordInboundCommand = {
  accountId: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', sessionId: SESSION, networkMessageId: '3EB0AA', from: '15551234567', fromLid: '915551234567',
  to: '15557654321', sentAt: '2026-11-21T10:00:00.000Z', quotedNetworkId: null, content: { type: 'text', text: 'hi' },
};
const facts = { messageId: inboundMessageId(SESSION, '3EB0AA', Date.parse(command.sentAt)), linkedMessageId: null, receivedAt: '2026-11-21T10:00:01.000Z' };

describe('received message ids', () => {
  it('are message ids, the same for the same (session, network id), time-sorted by the message time', () => {
    const id = inboundMessageId(SESSION, '3EB0AA', 1_763_719_200_000);
    expect(id).toMatch(/^msg_[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect(inboundMessageId(SESSION, '3EB0AA', 1_763_719_200_000)).toBe(id);
    expect(inboundMessageId(SESSION, '3EB0AB', 1_763_719_200_000)).not.toBe(id);
    expect(inboundMessageId('ses_01JD8Z6Q9V4N2C3B5X7M1K0P2S', '3EB0AA', 1_763_719_200_000)).not.toBe(id);
    expect(inboundMessageId(SESSION, '3EB0AA', 1_763_719_201_000) > id).toBe(true);
  });
});

describe('recording a received message', () => {
  it('records it once: a second delivery decides nothing', () => {
    const events = decideInbound(command, facts, NOT_RECORDED);
    expect(events).toEqual([{ type: 'MessageReceived', version: 1, data: expect.objectContaining({ messageId: facts.messageId, from: '15551234567', fromLid: '915551234567', content: { type: 'text', text: 'hi' } }) }]);
    const after = events.reduce(evolveInbound, NOT_RECORDED);
    expect(decideInbound(command, facts, after)).toEqual([]);
  });

  it('a reaction is its own fact naming our message when we know it', () => {
    const reaction = { ...command, content: { type: 'reaction' as const, targetNetworkId: '3EB0FF', emoji: '👍' } };
    const [event] = decideInbound(reaction, { ...facts, linkedMessageId: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K' }, NOT_RECORDED);
    expect(event).toMatchObject({ type: 'MessageReactionReceived', data: { targetNetworkId: '3EB0FF', targetMessageId: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K', emoji: '👍' } });
  });

  it('a reply names the quoted message as ours', () => {
    const [event] = decideInbound({ ...command, quotedNetworkId: '3EB0FF' }, { ...facts, linkedMessageId: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K' }, NOT_RECORDED);
    expect(event).toMatchObject({ data: { quotedNetworkId: '3EB0FF', quotedMessageId: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K' } });
  });
});
