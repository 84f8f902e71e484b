import type { ErrorCode, MediaDescriptor } from '@switchboard/contracts';
import type { OpenedMessageContent } from '../contents/opened-content.js';

/** What every accepted message knows: who sends what to whom, and which daily unit it took. */
export interface AcceptedMessage {
  messageId: string;
  accountId: string;
  sessionId: string;
  to: string;
  /** In plain text while the account's data key exists; erased once it is destroyed. */
  content: OpenedMessageContent;
  quotedMessageId: string | null;
  /** Show "typing…" before the message (absent: no). */
  typing?: true;
  /** SHA-256 of the request's Idempotency-Key, if it had one. */
  idempotencyKeyHash: string | null;
  /** The daily counter the message's unit was taken from (a refund goes back there). */
  usageDay: string;
  acceptedAt: string;
}

/** On the network: the network's id of the message and when it acknowledged it. */
export interface OnNetwork {
  networkMessageId: string;
  sentAt: string;
}

/**
 * Message: one outbound message. `pending` → `sent` → `delivered` → `read`, or `failed`; never
 * backwards. `deliveredAt`/`readAt` exist only once they happened.
 */
export type Message =
  | { status: 'absent' }
  | (AcceptedMessage & { status: 'pending' })
  | (AcceptedMessage & OnNetwork & { status: 'sent' })
  | (AcceptedMessage & OnNetwork & { status: 'delivered'; deliveredAt: string })
  | (AcceptedMessage & OnNetwork & { status: 'read'; deliveredAt: string; readAt: string })
  | (AcceptedMessage & FailedFacts & { status: 'failed' });

export interface FailedFacts {
  failure: { code: ErrorCode; message: string };
  failedAt: string;
  /** It certainly never reached the chat network (the event's `refundable`): a retry may send it. */
  beforeNetwork: boolean;
  /** Its daily unit is owed back (it never reached the network) and not yet refunded. */
  refundDue: boolean;
  refundedAt: string | null;
}

export type AcceptedState = Exclude<Message, { status: 'absent' }>;

export const initialState: Message = { status: 'absent' };

/** The media descriptor of a media message, else null. */
export function mediaOf(message: AcceptedMessage): MediaDescriptor | null {
  return message.content.type === 'media' ? message.content.media : null;
}
