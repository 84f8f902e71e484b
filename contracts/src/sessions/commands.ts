import { z } from 'zod';
import { ApiError } from '../errors/api-error.js';
import type { ErrorCode } from '../errors/codes.js';
import { IdempotencyRef } from '../common/idempotency.js';
import { AccountId, MessageId, SessionId } from '../common/ids.js';
import { Phone } from '../common/phone.js';
import { IsoTimestamp } from '../common/time.js';
import { MessageContent, Sha256Hex } from '../messages/content.js';
import { SessionName, SessionStatus } from './status.js';
import { CreateSessionResult } from './http.js';

// Bus requests handled by the sessions service. Every request names the account it acts for;
// a session of another account answers SESSION_NOT_FOUND, never FORBIDDEN.

/**
 * sb.v1.sessions.create: creates a session and answers with its first QR code. With
 * `idempotency`, a repeat of the same key and body within 24 h answers for the first session
 * instead of creating another; the same key with another body is IDEMPOTENCY_KEY_REUSED.
 */
export const CreateSessionCommand = z.object({
  accountId: AccountId,
  name: SessionName.optional(),
  /** Pair by code for this number too (the reply then carries `pairingCode`). */
  phoneNumber: Phone.optional(),
  /** `requestHash` covers `idempotencyRequestHash(CREATE_SESSION_KIND, body)`. */
  idempotency: IdempotencyRef.optional(),
});
export type CreateSessionCommand = z.infer<typeof CreateSessionCommand>;

/** Reply of sb.v1.sessions.create: the HTTP result, and `replayed` when a repeated Idempotency-Key found it. */
export const CreateSessionReply = CreateSessionResult.extend({ replayed: z.boolean().optional() });
export type CreateSessionReply = z.infer<typeof CreateSessionReply>;

/** sb.v1.sessions.get / .qr / .delete */
export const SessionRef = z.object({ accountId: AccountId, sessionId: SessionId });
export type SessionRef = z.infer<typeof SessionRef>;

/** sb.v1.sessions.contact: is `phone` on the chat network? Asked through the session's connection. */
export const ContactCheckRequest = SessionRef.extend({ phone: Phone });
export type ContactCheckRequest = z.infer<typeof ContactCheckRequest>;

/**
 * sb.v1.sessions.deleteAll: deletes every session of the account, each as sb.v1.sessions.delete
 * does (logged out, credentials wiped, SessionDeleted, slot freed): an account's closure. Also
 * run on the AccountClosed fact. `deleted` lists the sessions deleted since the last answer for the
 * account: by this request, or by the fact of the same closure (which often gets there first).
 */
export const DeleteAllSessionsRequest = z.object({ accountId: AccountId });
export type DeleteAllSessionsRequest = z.infer<typeof DeleteAllSessionsRequest>;
export const DeleteAllSessionsReply = z.object({ accountId: AccountId, deleted: z.array(SessionId) });
export type DeleteAllSessionsReply = z.infer<typeof DeleteAllSessionsReply>;

/** sb.v1.sessions.list: limit/offset already defaulted and clamped by the gateway. */
export const ListSessionsRequest = z.object({
  accountId: AccountId,
  limit: z.number().int().min(1).max(100),
  offset: z.number().int().min(0),
  status: SessionStatus.optional(),
});
export type ListSessionsRequest = z.infer<typeof ListSessionsRequest>;

/** Reply of sb.v1.sessions.delete. */
export const DeleteSessionReply = z.object({ sessionId: SessionId, deletedAt: IsoTimestamp });
export type DeleteSessionReply = z.infer<typeof DeleteSessionReply>;

/**
 * Where the bytes of a media message wait for the sending session: the media blob store keyed by
 * sha256 (a NATS Object Store bucket in distributed mode, a folder of the data dir embedded), or
 * inline base64 for small files. Bytes are kept out of events; this reference is transient.
 */
export const MediaBytesRef = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('blob'), sha256: Sha256Hex }),
  z.object({ kind: z.literal('inline'), base64: z.string().min(4) }),
]);
export type MediaBytesRef = z.infer<typeof MediaBytesRef>;

/** The message being replied to, as the network knows it. */
export const QuotedRef = z.object({ messageId: MessageId, networkMessageId: z.string().min(1).max(256) });
export type QuotedRef = z.infer<typeof QuotedRef>;

/**
 * sb.v1.sessions.send: deliver one accepted message through the session's connection. Answers
 * once the network acknowledged it. Sending the same `messageId` again must not send twice (the
 * owner remembers recent ids). Fails with SESSION_NOT_CONNECTED, RECIPIENT_NOT_ON_CHAT_NETWORK
 * or CHAT_NETWORK_ERROR.
 */
export const DeliverMessageCommand = z
  .object({
    accountId: AccountId,
    sessionId: SessionId,
    messageId: MessageId,
    to: Phone,
    content: MessageContent,
    media: MediaBytesRef.optional(),
    quoted: QuotedRef.nullable().optional(),
    /** Show the recipient "typing…" (presence `composing`, then `paused`) before the message. */
    typing: z.literal(true).optional(),
  })
  .refine((c) => (c.content.type === 'media') === (c.media !== undefined), {
    path: ['media'],
    message: 'media bytes are required for, and only for, media content',
  });
export type DeliverMessageCommand = z.infer<typeof DeliverMessageCommand>;

/**
 * Refusals of sb.v1.sessions.send that mean the message never reached the network (nothing was
 * written to it): its daily unit may be given back, and a retry cannot send it twice.
 */
const NEVER_SENT_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'SESSION_NOT_CONNECTED', 'SESSION_NOT_FOUND', 'RECIPIENT_NOT_ON_CHAT_NETWORK', 'MESSAGE_NOT_FOUND',
  'MEDIA_UNREACHABLE', 'MEDIA_TOO_LARGE', 'MEDIA_TYPE_MISMATCH', 'VALIDATION_ERROR',
]);

/**
 * `details` of a CHAT_NETWORK_ERROR from sb.v1.sessions.send that says whether the network got the
 * message; `queued`: not yet, it waits its turn under the session's send pacing and goes out later.
 */
export const DeliveryFailureDetails = z.object({ reachedNetwork: z.boolean(), queued: z.literal(true).optional() });
export type DeliveryFailureDetails = z.infer<typeof DeliveryFailureDetails>;

/** The CHAT_NETWORK_ERROR of a send that was not written to the network (a socket being restored). */
export function notSentError(message: string): ApiError {
  return new ApiError('CHAT_NETWORK_ERROR', message, { reachedNetwork: false } satisfies DeliveryFailureDetails);
}

/**
 * The answer of sb.v1.sessions.send for a message still waiting its turn under the session's send
 * pacing when the send deadline is up: nothing was written yet, and sessions still sends it. The
 * caller asks again with the same messageId (it joins the waiting send, never a second one).
 */
export function queuedError(): ApiError {
  const message = "The message waits its turn under the session's send pacing; ask again with the same messageId.";
  return new ApiError('CHAT_NETWORK_ERROR', message, { reachedNetwork: false, queued: true } satisfies DeliveryFailureDetails);
}

/** Whether a failed sb.v1.sessions.send is a message still queued by pacing (see `queuedError`). */
export function isQueued(error: Pick<ApiError, 'code' | 'details'>): boolean {
  if (error.code !== 'CHAT_NETWORK_ERROR') return false;
  const details = DeliveryFailureDetails.safeParse(error.details);
  return details.success && details.data.queued === true;
}

/**
 * Whether a failed sb.v1.sessions.send reached the chat network: `false` when it certainly did not
 * (a refusal before the network, or a CHAT_NETWORK_ERROR that says so), `true` when sessions says
 * it did, `undefined` when nobody knows (a CHAT_NETWORK_ERROR mid-send, a timeout, a bug).
 */
export function reachedNetwork(error: Pick<ApiError, 'code' | 'details'>): boolean | undefined {
  if (NEVER_SENT_CODES.has(error.code)) return false;
  if (error.code !== 'CHAT_NETWORK_ERROR') return undefined;
  const details = DeliveryFailureDetails.safeParse(error.details);
  return details.success ? details.data.reachedNetwork : undefined;
}

/** Reply of sb.v1.sessions.send. */
export const DeliverMessageReply = z.object({
  messageId: MessageId,
  networkMessageId: z.string().min(1).max(256),
  sentAt: IsoTimestamp,
  /** The session's linked number, the message's sender (absent in answers recorded before it was kept). */
  from: Phone.optional(),
});
export type DeliverMessageReply = z.infer<typeof DeliverMessageReply>;
