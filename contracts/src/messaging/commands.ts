import { z } from 'zod';
import { IdempotencyRef } from '../common/idempotency.js';
import { AccountId, MessageId, SessionId } from '../common/ids.js';
import { IsoTimestamp } from '../common/time.js';
import { Sha256Hex } from '../messages/content.js';
import { SendButtonsBody, SendLocationBody, SendMediaResult, SendMessageResult, SendPollBody, mediaSendBody } from '../messages/http.js';
import { SendTextBody } from '../messages/http.js';
import { MediaUrl } from '../messages/media.js';
import { DailyUsage } from '../quota/commands.js';

// Bus requests handled by the messaging service. The HTTP body travels whole under `body`, so the
// service re-validates it with exactly the schema the gateway used (refinements included); only
// inline media is replaced by a reference to its stored bytes (SendMediaCommandBody).

/**
 * `idempotency`: the Idempotency-Key as the gateway hashed it, with `requestHash` =
 * `idempotencyRequestHash(kind, body)`; compared when the key was used before.
 */
function sendCommand<B extends z.ZodType>(body: B) {
  return z.object({
    accountId: AccountId,
    idempotency: IdempotencyRef.optional(),
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
/**
 * Inline media (base64, a data URL) as the gateway hands it on: decoded, within its type's cap and
 * put in the media blob store under `sha256`, so the bytes never ride on the bus (NATS refuses
 * messages over its `max_payload`, 1 MiB by default). `mimetype`: the data URL's declared type, a
 * hint for sniffing.
 */
export const StoredMedia = z.object({ sha256: Sha256Hex, size: z.number().int().min(1), mimetype: z.string().min(3).max(255).nullable() }).strict();
export type StoredMedia = z.infer<typeof StoredMedia>;

/**
 * The HTTP body of a media send, but `media` is an http(s) URL for messaging to fetch, or inline
 * media already stored by the gateway. The Idempotency-Key's requestHash still covers the client's
 * own body (with the base64), as the gateway received it.
 */
export const SendMediaCommandBody = mediaSendBody(z.union([MediaUrl, StoredMedia]));
export type SendMediaCommandBody = z.infer<typeof SendMediaCommandBody>;

/** sb.v1.messaging.sendMedia */
export const SendMediaCommand = sendCommand(SendMediaCommandBody);
export type SendMediaCommand = z.infer<typeof SendMediaCommand>;
/** sb.v1.messaging.sendLocation */
export const SendLocationCommand = sendCommand(SendLocationBody);
export type SendLocationCommand = z.infer<typeof SendLocationCommand>;
/** sb.v1.messaging.sendButtons */
export const SendButtonsCommand = sendCommand(SendButtonsBody);
export type SendButtonsCommand = z.infer<typeof SendButtonsCommand>;
/** sb.v1.messaging.sendPoll */
export const SendPollCommand = sendCommand(SendPollBody);
export type SendPollCommand = z.infer<typeof SendPollCommand>;

/** sb.v1.messaging.get */
export const MessageRef = z.object({ accountId: AccountId, messageId: MessageId });
export type MessageRef = z.infer<typeof MessageRef>;

/**
 * A delivery/read receipt from the network, as the sessions service forwards it. Keyed by the
 * network's message id, which only messaging can map back to a message.
 */
export const RecordReceiptCommand = z.object({
  accountId: AccountId,
  sessionId: SessionId,
  networkMessageId: z.string().min(1).max(256),
  receipt: z.enum(['delivered', 'read']),
  at: IsoTimestamp,
});
export type RecordReceiptCommand = z.infer<typeof RecordReceiptCommand>;

/** What a receipt did: `applied` is false for unknown ids and for receipts that change nothing. */
export const RecordReceiptReply = z.object({ messageId: MessageId.nullable(), applied: z.boolean() });
export type RecordReceiptReply = z.infer<typeof RecordReceiptReply>;

/** Receipts in one call at most: what a burst of sends brings back at once. */
export const MAX_RECEIPTS_PER_CALL = 64;

/**
 * sb.v1.messaging.recordReceipts: the receipts of one account that sessions had ready at once, in
 * the order the network gave them (a message's receipts are applied in that order). One round
 * trip for a burst.
 */
export const RecordReceiptsCommand = z
  .object({ accountId: AccountId, receipts: z.array(RecordReceiptCommand).min(1).max(MAX_RECEIPTS_PER_CALL) })
  .refine((command) => command.receipts.every((receipt) => receipt.accountId === command.accountId), {
    message: "every receipt must be of the call's account",
    path: ['receipts'],
  });
export type RecordReceiptsCommand = z.infer<typeof RecordReceiptsCommand>;

/** Reply of recordReceipts: what each receipt did, in the order of the request. */
export const RecordReceiptsReply = z.object({ results: z.array(RecordReceiptReply) });
export type RecordReceiptsReply = z.infer<typeof RecordReceiptsReply>;
