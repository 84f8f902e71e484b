import type { ErrorCode, MessageContent } from '@switchboard/contracts';

/** Commands of the message aggregate. Times come in as ISO strings: `decide` reads no clock. */
export type MessageCommand =
  | {
      type: 'AcceptMessage';
      messageId: string;
      accountId: string;
      sessionId: string;
      to: string;
      content: MessageContent;
      quotedMessageId: string | null;
      idempotencyKeyHash: string | null;
      usageDay: string;
      at: string;
    }
  | { type: 'RecordSent'; networkMessageId: string; from?: string | undefined; at: string }
  | { type: 'RecordReceipt'; receipt: 'delivered' | 'read'; at: string }
  /** `refundable`: the message never reached the network, so its daily unit goes back. */
  | { type: 'FailMessage'; code: ErrorCode; message: string; refundable: boolean; at: string }
  | { type: 'RecordRefund'; at: string };
