import { z } from 'zod';
import { IdempotencyKey } from '../common/headers.js';
import { AccountId, MessageId, SessionId } from '../common/ids.js';
import { IsoTimestamp } from '../common/time.js';
import { SendButtonsBody, SendLocationBody, SendMediaBody, SendMediaResult, SendMessageResult } from '../messages/http.js';
import { SendTextBody } from '../messages/http.js';
import { Sha256Hex } from '../messages/content.js';
import { DailyUsage } from '../quota/commands.js';

// Bus requests handled by the messaging service. The HTTP body travels whole under `body`, so the
// service re-validates it with exactly the schema the gateway used (refinements included).

/**
 * `requestHash`: SHA-256 (lower-case hex) of `idempotencyHashInput(kind, body)`; compared when the
 * Idempotency-Key was used before. Optional: messaging computes the same hash when it is absent.
 */
function sendCommand<B extends z.ZodType>(body: B) {
  return z.object({
    accountId: AccountId,
    idempotencyKey: IdempotencyKey.nullable().optional(),
    requestHash: Sha256Hex.optional(),
    body,
  });
}

/**
 * Reply of a send: the HTTP `data` plus the daily usage after this message, for the
 * `RateLimit-Limit/Remaining/Reset` headers (absent when quota was not consulted, e.g. on a
 * replay of a message that was never counted). The gateway strips `usage` from the body.
 * `replayed`: answered from an earlier request with the same Idempotency-Key.
 */
const sendReplyExtras = { usage: DailyUsage.optional(), replayed: z.boolean().optional() };
export const SendMessageReply = SendMessageResult.extend(sendReplyExtras);
export type SendMessageReply = z.infer<typeof SendMessageReply>;
export const SendMediaReply = SendMediaResult.extend(sendReplyExtras);
export type SendMediaReply = z.infer<typeof SendMediaReply>;

/** sb.v1.messaging.sendText */
export const SendTextCommand = sendCommand(SendTextBody);
export type SendTextCommand = z.infer<typeof SendTextCommand>;
/** sb.v1.messaging.sendMedia */
export const SendMediaCommand = sendCommand(SendMediaBody);
export type SendMediaCommand = z.infer<typeof SendMediaCommand>;
/** sb.v1.messaging.sendLocation */
export const SendLocationCommand = sendCommand(SendLocationBody);
export type SendLocationCommand = z.infer<typeof SendLocationCommand>;
/** sb.v1.messaging.sendButtons */
export const SendButtonsCommand = sendCommand(SendButtonsBody);
export type SendButtonsCommand = z.infer<typeof SendButtonsCommand>;

/** sb.v1.messaging.get */
export const MessageRef = z.object({ accountId: AccountId, messageId: MessageId });
export type MessageRef = z.infer<typeof MessageRef>;

/**
 * sb.v1.messaging.recordReceipt: the sessions service forwards a delivery/read receipt from the
 * network. Keyed by the network's message id, which only messaging can map back to a message.
 */
export const RecordReceiptCommand = z.object({
  accountId: AccountId,
  sessionId: SessionId,
  networkMessageId: z.string().min(1).max(256),
  receipt: z.enum(['delivered', 'read']),
  at: IsoTimestamp,
});
export type RecordReceiptCommand = z.infer<typeof RecordReceiptCommand>;

/** Reply of recordReceipt: `applied` is false for unknown ids and for receipts that change nothing. */
export const RecordReceiptReply = z.object({ messageId: MessageId.nullable(), applied: z.boolean() });
export type RecordReceiptReply = z.infer<typeof RecordReceiptReply>;
