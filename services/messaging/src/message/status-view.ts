import type { MessageFailure, MessageStatusView } from '@switchboard/contracts';
import { contentTypeOf } from '../contents/opened-content.js';
import type { AcceptedState } from './state.js';

/** What a status lookup shows of an outbound message, from whichever source holds it. */
export interface StatusFacts {
  messageId: MessageStatusView['messageId'];
  status: MessageStatusView['status'];
  acceptedAt: string;
  deliveredAt: string | null;
  readAt: string | null;
  sessionId: string;
  to: string;
  type: NonNullable<MessageStatusView['type']>;
  failure: MessageFailure | null;
}

/**
 * The one place `MessageStatusView` is built: GET /v1/messages/{id} and the history answer it
 * from the read model, or from the message's own stream while the read model catches up.
 */
export function messageStatusView(facts: StatusFacts): MessageStatusView {
  return {
    messageId: facts.messageId,
    status: facts.status,
    timestamp: facts.acceptedAt,
    deliveredAt: facts.deliveredAt,
    readAt: facts.readAt,
    sessionId: facts.sessionId,
    to: facts.to,
    type: facts.type,
    ...(facts.failure ? { error: facts.failure } : {}),
  };
}

/** The facts as the message's folded stream has them. */
export function statusFactsOf(state: AcceptedState): StatusFacts {
  return {
    messageId: state.messageId,
    status: state.status,
    acceptedAt: state.acceptedAt,
    deliveredAt: state.status === 'delivered' || state.status === 'read' ? state.deliveredAt : null,
    readAt: state.status === 'read' ? state.readAt : null,
    sessionId: state.sessionId,
    to: state.to,
    type: contentTypeOf(state.content),
    failure: state.status === 'failed' ? state.failure : null,
  };
}
