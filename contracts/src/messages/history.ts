import { z } from 'zod';
import { MessageId, SessionId } from '../common/ids.js';
import { Phone } from '../common/phone.js';
import { IsoTimestamp } from '../common/time.js';
import { Sha256Hex } from './content.js';
import { MessageFailure } from './http.js';
import { MessageStatus } from './status.js';

// The conversation history (GET /v1/messages, issue 11): one item per message, inbound or
// outbound, and the same item as `data` of the `message.received` event.

/** Which way a message went: `in` from a contact to the linked number, `out` sent through the API. */
export const MessageDirection = z.enum(['in', 'out']);
export type MessageDirection = z.infer<typeof MessageDirection>;

/**
 * What a history item is: the four send types, and what contacts send beyond them. `unsupported`
 * carries the network's raw type name (`content.rawType`).
 */
export const HistoryMessageType = z.enum(['text', 'media', 'location', 'buttons', 'contact', 'poll_vote', 'button_reply', 'unsupported']);
export type HistoryMessageType = z.infer<typeof HistoryMessageType>;

/** Media kinds a contact can send (`voice` is a push-to-talk note, `sticker` a WebP sticker). */
export const InboundMediaKind = z.enum(['image', 'video', 'audio', 'voice', 'document', 'sticker']);
export type InboundMediaKind = z.infer<typeof InboundMediaKind>;

/** What is recorded of a media message: its metadata, the bytes being in the media blob store. */
export const InboundMediaFacts = z.object({
  mediaType: InboundMediaKind,
  mimetype: z.string().min(1).max(255),
  size: z.number().int().min(0),
  sha256: Sha256Hex,
  caption: z.string().max(4096).optional(),
  filename: z.string().min(1).max(255).optional(),
});
export type InboundMediaFacts = z.infer<typeof InboundMediaFacts>;

/** Media as the history shows it: metadata and the path that streams the bytes, never the bytes. */
export const HistoryMedia = InboundMediaFacts.extend({
  /** `/v1/messages/{messageId}/media`: the bytes with their Content-Type. */
  url: z.string().startsWith('/v1/messages/'),
});
export type HistoryMedia = z.infer<typeof HistoryMedia>;

/** A message's content by type: only the fields of its `type` are present. */
export const HistoryContent = z.object({
  text: z.string().max(65_536).optional(),
  media: HistoryMedia.optional(),
  location: z.object({ latitude: z.number(), longitude: z.number(), name: z.string().optional(), address: z.string().optional() }).optional(),
  buttons: z.array(z.object({ id: z.string(), text: z.string() })).optional(),
  footer: z.string().optional(),
  /** A contact card: the name shown and the vCard text. */
  contact: z.object({ displayName: z.string().max(1024), vcard: z.string().max(65_536) }).optional(),
  /** A vote on a poll: the poll's message id (ours when we sent it) and the options now chosen. */
  pollVote: z.object({ pollMessageId: z.string().min(1).max(256), options: z.array(z.string().max(1024)) }).optional(),
  /** The button or list row a contact tapped: its id and its text. */
  buttonReply: z.object({ id: z.string().max(1024), text: z.string().max(1024).optional() }).optional(),
  /** `unsupported`: the network's name of the message type. */
  rawType: z.string().max(128).optional(),
});
export type HistoryContent = z.infer<typeof HistoryContent>;

/**
 * One message of the conversation history. `from`/`to` are phone numbers (digits, as `to` of a
 * send) also when the network named the contact by LID; `fromLid` then holds it. `quotedMessageId`:
 * the message this one replies to, as our `msg_…` id when it is one of ours, else the network's id.
 * `status`, `deliveredAt`, `readAt` and `error` are outbound only.
 */
export const HistoryItem = HistoryContent.extend({
  messageId: MessageId,
  direction: MessageDirection,
  sessionId: SessionId,
  /** Null only for an outbound message of a session whose linked number is not known yet. */
  from: Phone.nullable(),
  to: Phone,
  fromLid: z.string().max(64).optional(),
  /** Contacts' current reactions to this message (a removed reaction is gone). */
  reactions: z.array(z.object({ from: Phone, emoji: z.string().max(32) })).optional(),
  type: HistoryMessageType,
  quotedMessageId: z.string().max(256).nullable(),
  status: MessageStatus.optional(),
  deliveredAt: IsoTimestamp.nullable().optional(),
  readAt: IsoTimestamp.nullable().optional(),
  error: MessageFailure.optional(),
  timestamp: IsoTimestamp,
});
export type HistoryItem = z.infer<typeof HistoryItem>;
