import type { MessageFact } from '../contents/opened-content.js';
import type { Message } from './state.js';

/** Folds one event into the message. Tolerates out-of-order facts by never moving backwards. */
export function evolve(state: Message, event: MessageFact): Message {
  switch (event.type) {
    case 'MessageAccepted': {
      const d = event.data;
      return {
        status: 'pending',
        messageId: d.messageId,
        accountId: d.accountId,
        sessionId: d.sessionId,
        to: d.to,
        content: d.content,
        quotedMessageId: d.quotedMessageId,
        ...(d.typing ? { typing: true as const } : {}),
        idempotencyKeyHash: d.idempotencyKeyHash,
        usageDay: d.usageDay,
        acceptedAt: d.acceptedAt,
      };
    }
    case 'MessageSent':
      return state.status === 'pending' ? { ...state, status: 'sent', networkMessageId: event.data.networkMessageId, sentAt: event.data.sentAt } : state;
    case 'MessageDelivered':
      return state.status === 'sent' ? { ...state, status: 'delivered', deliveredAt: event.data.deliveredAt } : state;
    case 'MessageRead':
      if (state.status === 'sent') return { ...state, status: 'read', deliveredAt: event.data.readAt, readAt: event.data.readAt };
      return state.status === 'delivered' ? { ...state, status: 'read', readAt: event.data.readAt } : state;
    case 'MessageFailed': {
      if (state.status !== 'pending') return state;
      const { code, message, refundable, failedAt } = event.data;
      return { ...state, status: 'failed', failure: { code, message }, failedAt, beforeNetwork: refundable, refundDue: refundable, refundedAt: null };
    }
    case 'MessageQuotaRefunded':
      return state.status === 'failed' ? { ...state, refundDue: false, refundedAt: event.data.refundedAt } : state;
    default:
      return state;
  }
}
