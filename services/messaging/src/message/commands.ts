import type { ErrorCode, MessageContent } from '@switchboard/contracts';

/** Commands of the message aggregate. The time comes in the command (`now`): `decide` reads no clock. */
export type MessageCommand =
  | {
      type: 'AcceptMessage';
      messageId: string;
      accountId: string;
      sessionId: string;
      to: string;
      content: MessageContent;
      quotedMessageId: string | null;
      /** Show "typing…" before the message. */
      typing?: boolean;
      idempotencyKeyHash: string | null;
      usageDay: string;
      now: Date;
    }
  | { type: 'RecordSent'; networkMessageId: string; from?: string | undefined; now: Date }
  | { type: 'RecordReceipt'; receipt: 'delivered' | 'read'; now: Date }
  /** `refundable`: the message never reached the network, so its daily unit goes back. */
  | { type: 'FailMessage'; code: ErrorCode; message: string; refundable: boolean; now: Date }
  | { type: 'RecordRefund'; now: Date };
