import { z } from 'zod';
import { AccountId, MessageId, SessionId } from '../common/ids.js';
import { Phone } from '../common/phone.js';
import { IsoTimestamp, UtcDay } from '../common/time.js';
import { ErrorCode } from '../errors/codes.js';
import { defineEvent } from '../events/define.js';
import { createEventParser } from '../events/parser.js';
import type { EventParser } from '../events/parser.js';
import { idempotencyKeyHash } from '../common/idempotency.js';
import { IdempotencyKey } from '../common/headers.js';
import { MessageContent, Sha256Hex } from '../messages/content.js';
import { InboundContent, NetworkMessageId, inboundOrigin } from './inbound.js';

// Events of the `message-msg_…` streams.

const acceptedFacts = {
  messageId: MessageId,
  accountId: AccountId,
  sessionId: SessionId,
  to: Phone,
  content: MessageContent,
  quotedMessageId: MessageId.nullable(),
  usageDay: UtcDay,
  acceptedAt: IsoTimestamp,
};

/**
 * The message passed validation and took one daily unit (reserved in quota for `usageDay`).
 * Content is kept (except media bytes, see MessageContent) because recovery after a crash must be
 * able to finish the send from this stream alone; `usageDay` names the counter a refund goes to,
 * even if the failure happens after midnight. `idempotencyKeyHash`: SHA-256 of the request's
 * Idempotency-Key (the raw key never leaves the gateway).
 */
export const MessageAccepted = defineEvent('MessageAccepted', 2, { ...acceptedFacts, idempotencyKeyHash: Sha256Hex.nullable() });
export type MessageAccepted = z.infer<typeof MessageAccepted>;

/** Version 1 kept the raw Idempotency-Key; still read from older streams, never written. */
export const MessageAcceptedV1 = defineEvent('MessageAccepted', 1, { ...acceptedFacts, idempotencyKey: IdempotencyKey.nullable() });
export type MessageAcceptedV1 = z.infer<typeof MessageAcceptedV1>;

/** The chat network acknowledged the message; `networkMessageId` is its id there (receipts use it). */
export const MessageSent = defineEvent('MessageSent', 1, {
  messageId: MessageId,
  networkMessageId: z.string().min(1).max(256),
  sentAt: IsoTimestamp,
  /** The session's linked number that sent it (absent in facts recorded before it was kept). */
  from: Phone.optional(),
});
export type MessageSent = z.infer<typeof MessageSent>;

/** The recipient's device has the message. */
export const MessageDelivered = defineEvent('MessageDelivered', 1, {
  messageId: MessageId,
  deliveredAt: IsoTimestamp,
});
export type MessageDelivered = z.infer<typeof MessageDelivered>;

/** The recipient opened the message. A read implies delivery even if that receipt never came. */
export const MessageRead = defineEvent('MessageRead', 1, {
  messageId: MessageId,
  readAt: IsoTimestamp,
});
export type MessageRead = z.infer<typeof MessageRead>;

/**
 * The message will not be sent. `refundable`: it failed before reaching the chat network, so its
 * daily unit is owed back; the refund itself is a separate fact (MessageQuotaRefunded), so a crash
 * between the two leaves a stream that says a refund is still due.
 */
export const MessageFailed = defineEvent('MessageFailed', 1, {
  messageId: MessageId,
  code: ErrorCode,
  message: z.string().min(1).max(1000),
  refundable: z.boolean(),
  failedAt: IsoTimestamp,
});
export type MessageFailed = z.infer<typeof MessageFailed>;

/** Quota confirmed the refund of the message's daily unit. */
export const MessageQuotaRefunded = defineEvent('MessageQuotaRefunded', 1, {
  messageId: MessageId,
  usageDay: UtcDay,
  refundedAt: IsoTimestamp,
});
export type MessageQuotaRefunded = z.infer<typeof MessageQuotaRefunded>;

const inboundFacts = { messageId: MessageId, ...inboundOrigin, receivedAt: IsoTimestamp };

/**
 * A contact's message reached a session (issue 11), in a stream of its own whose id derives from
 * (sessionId, networkMessageId): a duplicate delivery finds the stream written and adds nothing.
 * `quotedMessageId`: the quoted message as our id when Switchboard knows it, else null (the
 * network's id stays in `quotedNetworkId`).
 */
export const MessageReceived = defineEvent('MessageReceived', 1, {
  ...inboundFacts,
  content: InboundContent,
  quotedNetworkId: NetworkMessageId.nullable(),
  quotedMessageId: MessageId.nullable(),
});
export type MessageReceived = z.infer<typeof MessageReceived>;

/**
 * A contact reacted to a message (an empty `emoji` removes the reaction). A reaction is a message
 * of its own on the network, so it gets its own stream like any received message; `targetMessageId`
 * names the reacted message as our id when Switchboard knows it (ours or an earlier received one).
 */
export const MessageReactionReceived = defineEvent('MessageReactionReceived', 1, {
  ...inboundFacts,
  targetNetworkId: NetworkMessageId,
  targetMessageId: MessageId.nullable(),
  emoji: z.string().max(32),
});
export type MessageReactionReceived = z.infer<typeof MessageReactionReceived>;

export const MESSAGE_EVENTS = [
  MessageAccepted,
  MessageSent,
  MessageDelivered,
  MessageRead,
  MessageFailed,
  MessageQuotaRefunded,
  MessageReceived,
  MessageReactionReceived,
] as const;

/** Any event of a message stream (current versions). */
export const MessageEvent = z.discriminatedUnion('type', [...MESSAGE_EVENTS]);
export type MessageEvent = z.infer<typeof MessageEvent>;
export type MessageEventType = MessageEvent['type'];

const storedMessageEvents = createEventParser([...MESSAGE_EVENTS, MessageAcceptedV1]);

/**
 * Reads a message event from the store by type + version; older versions come out as the current
 * one (MessageAccepted@1's raw key becomes its hash), so folds and projections see one shape.
 */
export const messageEventParser: EventParser<MessageEvent> = {
  keys: storedMessageEvents.keys,
  safeParse: (raw) => {
    const result = storedMessageEvents.safeParse(raw);
    return result.ok ? { ok: true, event: upcast(result.event) } : result;
  },
  parse: (raw) => upcast(storedMessageEvents.parse(raw)),
};

function upcast(event: MessageEvent | MessageAcceptedV1): MessageEvent {
  if (event.type !== 'MessageAccepted' || event.version === 2) return event;
  const { idempotencyKey, ...facts } = event.data;
  return { type: 'MessageAccepted', version: 2, data: { ...facts, idempotencyKeyHash: idempotencyKey === null ? null : idempotencyKeyHash(idempotencyKey) } };
}

export * from './idempotency.js';
