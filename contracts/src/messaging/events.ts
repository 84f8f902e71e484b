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
import { DataKeyId, SealedInboundContent, SealedMessageContent } from './sealed-content.js';

// Events of the `message-msg_…` streams, and of `message-acc_…` (an account's message contents,
// see MessageContentsErased).

const acceptedFacts = {
  messageId: MessageId,
  accountId: AccountId,
  sessionId: SessionId,
  to: Phone,
  content: MessageContent,
  quotedMessageId: MessageId.nullable(),
  /** The client asked to show "typing…" before the message (absent: no). */
  typing: z.literal(true).optional(),
  usageDay: UtcDay,
  acceptedAt: IsoTimestamp,
};

/**
 * The message passed validation and took one daily unit (reserved in quota for `usageDay`).
 * Content is kept (except media bytes, see MessageContent) because recovery after a crash must be
 * able to finish the send from this stream alone; `usageDay` names the counter a refund goes to,
 * even if the failure happens after midnight. `idempotencyKeyHash`: SHA-256 of the request's
 * Idempotency-Key (the raw key never leaves the gateway). This version, with the content in plain
 * text, is what the messaging service works with; streams hold it as written before contents were
 * sealed (issue 16), and MessageAcceptedSealed (version 3) since.
 */
export const MessageAccepted = defineEvent('MessageAccepted', 2, { ...acceptedFacts, idempotencyKeyHash: Sha256Hex.nullable() });
export type MessageAccepted = z.infer<typeof MessageAccepted>;

/** Version 3, what is written now: the same facts, the content sealed under the account's data key. */
export const MessageAcceptedSealed = defineEvent('MessageAccepted', 3, { ...acceptedFacts, content: SealedMessageContent, idempotencyKeyHash: Sha256Hex.nullable() });
export type MessageAcceptedSealed = z.infer<typeof MessageAcceptedSealed>;

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

/** Version 2, what is written now: the same facts, the content sealed under the account's data key. */
export const MessageReceivedSealed = defineEvent('MessageReceived', 2, {
  ...inboundFacts,
  content: SealedInboundContent,
  quotedNetworkId: NetworkMessageId.nullable(),
  quotedMessageId: MessageId.nullable(),
});
export type MessageReceivedSealed = z.infer<typeof MessageReceivedSealed>;

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

/**
 * The account's message contents were erased (crypto-shredding, issue 16): `keyIds`, the data keys
 * that sealed them, are destroyed right after this fact is recorded, so every content they sealed
 * reads as erased; contents recorded in plain text before sealing existed are cleared from the read
 * models (the stored events stay as they are: the hash chain covers them). In the account's stream
 * `message-acc_…`; never carries key material.
 */
export const MessageContentsErased = defineEvent('MessageContentsErased', 1, {
  accountId: AccountId,
  keyIds: z.array(DataKeyId).max(64),
  erasedAt: IsoTimestamp,
});
export type MessageContentsErased = z.infer<typeof MessageContentsErased>;

/** The message facts the service works with: contents in plain text (see SEALED_MESSAGE_EVENTS for how they are stored). */
export const MESSAGE_EVENTS = [
  MessageAccepted,
  MessageSent,
  MessageDelivered,
  MessageRead,
  MessageFailed,
  MessageQuotaRefunded,
  MessageReceived,
  MessageReactionReceived,
  MessageContentsErased,
] as const;

/** The versions written with sealed contents (issue 16); only the messaging service can open them. */
export const SEALED_MESSAGE_EVENTS = [MessageAcceptedSealed, MessageReceivedSealed] as const;

/** Any event of a message stream, contents in plain text. */
export const MessageEvent = z.discriminatedUnion('type', [...MESSAGE_EVENTS]);
export type MessageEvent = z.infer<typeof MessageEvent>;
export type MessageEventType = MessageEvent['type'];
/** A message fact as written now: acceptances and received messages with their contents sealed. */
export type SealedMessageEvent = z.infer<(typeof SEALED_MESSAGE_EVENTS)[number]>;
/** What a message stream holds: facts with sealed contents, or in plain text (written before sealing). */
export type StoredMessageEvent = MessageEvent | SealedMessageEvent;

const storedMessageEvents = createEventParser([...MESSAGE_EVENTS, ...SEALED_MESSAGE_EVENTS, MessageAcceptedV1]);

/**
 * Reads a message event from the store by type + version; MessageAccepted@1 comes out as @2 (its
 * raw key becomes its hash). Sealed contents stay sealed: the messaging service opens them.
 */
export const messageEventParser: EventParser<StoredMessageEvent> = {
  keys: storedMessageEvents.keys,
  safeParse: (raw) => {
    const result = storedMessageEvents.safeParse(raw);
    return result.ok ? { ok: true, event: upcast(result.event) } : result;
  },
  parse: (raw) => upcast(storedMessageEvents.parse(raw)),
  decode: (raw) => upcast(storedMessageEvents.decode(raw)),
};

function upcast(event: StoredMessageEvent | MessageAcceptedV1): StoredMessageEvent {
  if (event.type !== 'MessageAccepted' || event.version !== 1) return event;
  const { idempotencyKey, ...facts } = event.data;
  return { type: 'MessageAccepted', version: 2, data: { ...facts, idempotencyKeyHash: idempotencyKey === null ? null : idempotencyKeyHash(idempotencyKey) } };
}

export * from './idempotency.js';
export * from './sealed-content.js';
