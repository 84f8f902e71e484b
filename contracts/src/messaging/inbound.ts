import { z } from 'zod';
import { AccountId, MessageId, SessionId } from '../common/ids.js';
import { Phone } from '../common/phone.js';
import { IsoTimestamp } from '../common/time.js';
import { Sha256Hex } from '../messages/content.js';
import { InboundMediaFacts } from '../messages/history.js';
import { MAX_POLL_OPTIONS } from '../messages/http.js';

// What contacts send (issue 11): the content of an inbound message as sessions forwards it and
// messaging records it. Bytes never travel: media is in the media blob store under its sha256.

/** A network message id (not ours): what the network calls a message. */
export const NetworkMessageId = z.string().min(1).max(256);

const text = z.object({ type: z.literal('text'), text: z.string().max(65_536) });
const media = z.object({ type: z.literal('media'), media: InboundMediaFacts });
const location = z.object({
  type: z.literal('location'),
  latitude: z.number().min(-90).max(90),
  longitude: z.number().min(-180).max(180),
  name: z.string().max(1024).optional(),
  address: z.string().max(1024).optional(),
});
const contact = z.object({ type: z.literal('contact'), displayName: z.string().max(1024), vcard: z.string().max(65_536) });
/**
 * A vote on a poll as recorded: the options the voter has chosen now, by name (empty: withdrawn);
 * `pollMessageId` is our id of the poll when Switchboard sent it. `unreadable`: the vote could not
 * be opened (its poll was not sent through this session), so `options` is empty.
 */
const pollVote = z.object({
  type: z.literal('poll_vote'),
  pollNetworkId: NetworkMessageId,
  options: z.array(z.string().max(1024)).max(MAX_POLL_OPTIONS),
  pollMessageId: MessageId.optional(),
  unreadable: z.literal(true).optional(),
});
/**
 * A vote as sessions forwards it: `selectedOptionHashes` (SHA-256 hex of each chosen option's
 * text, as WhatsApp votes) when the session opened the vote, null when it could not. Messaging
 * names the options from the poll it sent. `options` stays empty (forwards before this field).
 */
const forwardedPollVote = pollVote.extend({ selectedOptionHashes: z.array(Sha256Hex).max(MAX_POLL_OPTIONS).nullable().optional() });
const buttonReply = z.object({ type: z.literal('button_reply'), id: z.string().max(1024), text: z.string().max(1024).optional() });
const unsupported = z.object({ type: z.literal('unsupported'), rawType: z.string().min(1).max(128) });
/** A reaction to a message (`emoji` empty = removed); recorded as its own fact, see MessageReactionReceived. */
const reaction = z.object({ type: z.literal('reaction'), targetNetworkId: NetworkMessageId, emoji: z.string().max(32) });

/** The content of a received message (a reaction is a fact of its own). */
export const InboundContent = z.discriminatedUnion('type', [text, media, location, contact, pollVote, buttonReply, unsupported]);
export type InboundContent = z.infer<typeof InboundContent>;

/** What sessions forwards: any received content, or a reaction. */
export const ForwardedContent = z.discriminatedUnion('type', [text, media, location, contact, forwardedPollVote, buttonReply, unsupported, reaction]);
export type ForwardedContent = z.infer<typeof ForwardedContent>;

/**
 * Where a received message comes from, as sessions forwards it and messaging records it: the
 * session, the network's id, the sender's number (and LID, when the network named them by it),
 * the linked number, and the network's timestamp.
 */
export const inboundOrigin = {
  accountId: AccountId,
  sessionId: SessionId,
  networkMessageId: NetworkMessageId,
  from: Phone,
  fromLid: z.string().min(1).max(64).optional(),
  to: Phone,
  sentAt: IsoTimestamp,
};

/**
 * sb.v1.messaging.recordInbound: a contact's message reached a session. `from` is the sender's
 * number also when the network named them by LID (then `fromLid`); `to` is the linked number;
 * `sentAt` the network's timestamp of the message. Idempotent per (sessionId, networkMessageId).
 */
export const RecordInboundCommand = z.object({
  ...inboundOrigin,
  quotedNetworkId: NetworkMessageId.nullable(),
  content: ForwardedContent,
});
export type RecordInboundCommand = z.infer<typeof RecordInboundCommand>;

/** `recorded`: false when the message was recorded before (a duplicate delivery). */
export const RecordInboundReply = z.object({ messageId: MessageId, recorded: z.boolean() });
export type RecordInboundReply = z.infer<typeof RecordInboundReply>;
