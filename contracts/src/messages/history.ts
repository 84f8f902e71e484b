import { z } from 'zod';
import { MessageId, SessionId } from '../common/ids.js';
import { Phone } from '../common/phone.js';
import { IsoTimestamp } from '../common/time.js';
import { Sha256Hex } from './content.js';
import { DELIVERED_AT, MessageFailure, READ_AT } from './http.js';
import { MessageStatus } from './status.js';

// The conversation history (GET /v1/messages, issue 11): one item per message, inbound or
// outbound, and the same item as `data` of the `message.received` event.

/** Which way a message went: `in` from a contact to the linked number, `out` sent through the API. */
export const MessageDirection = z.enum(['in', 'out']).meta({ description: '`in`: a contact wrote to the linked number; `out`: sent through the API.', example: 'in' });
export type MessageDirection = z.infer<typeof MessageDirection>;

/**
 * What a history item is: the four send types, and what contacts send beyond them. `unsupported`
 * carries the network's raw type name (`content.rawType`).
 */
export const HistoryMessageType = z
  .enum(['text', 'media', 'location', 'buttons', 'poll', 'contact', 'poll_vote', 'button_reply', 'unsupported'])
  .meta({ description: 'What the message is; only the content fields of its type are present.', example: 'text' });
export type HistoryMessageType = z.infer<typeof HistoryMessageType>;

/** Media kinds a contact can send (`voice` is a push-to-talk note, `sticker` a WebP sticker). */
export const InboundMediaKind = z
  .enum(['image', 'video', 'audio', 'voice', 'document', 'sticker'])
  .meta({ description: 'The kind of media (`voice`: a push-to-talk note).', example: 'image' });
export type InboundMediaKind = z.infer<typeof InboundMediaKind>;

/** What is recorded of a media message: its metadata, the bytes being in the media blob store. */
export const InboundMediaFacts = z.object({
  mediaType: InboundMediaKind,
  mimetype: z.string().min(1).max(255).meta({ description: 'The bytes\' Content-Type.', example: 'image/jpeg' }),
  size: z.number().int().min(0).meta({ description: 'Size in bytes.', example: 48213 }),
  sha256: Sha256Hex.meta({ description: 'SHA-256 of the bytes, hex.', example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08' }),
  caption: z.string().max(4096).optional().meta({ description: 'Text shown under the media.', example: 'hi' }),
  filename: z.string().min(1).max(255).optional().meta({ description: 'The document\'s file name.', example: 'menu.pdf' }),
});
export type InboundMediaFacts = z.infer<typeof InboundMediaFacts>;

/** Media as the history shows it: metadata and the path that streams the bytes, never the bytes. */
export const HistoryMedia = InboundMediaFacts.extend({
  /** `/v1/messages/{messageId}/media`: the bytes with their Content-Type. */
  url: z.string().startsWith('/v1/messages/').meta({ description: 'Where to download the bytes (kept 24 h).', example: '/v1/messages/msg_01JD8Z7A1B2C3D4E5F6G7H8J9K/media' }),
}).meta({ description: 'The media\'s metadata (`media`).' });
export type HistoryMedia = z.infer<typeof HistoryMedia>;

/** A message's content by type: only the fields of its `type` are present. */
export const HistoryContent = z.object({
  text: z.string().max(65_536).optional().meta({ description: 'The text (`text`, `buttons`).', example: 'Is the table for 4 still free?' }),
  media: HistoryMedia.optional(),
  location: z
    .object({
      latitude: z.number().meta({ description: 'Degrees north.', example: 52.379 }),
      longitude: z.number().meta({ description: 'Degrees east.', example: 4.9 }),
      name: z.string().optional().meta({ description: 'The place\'s name.', example: 'Central Station' }),
      address: z.string().optional().meta({ description: 'The place\'s address.', example: '1 Station Square' }),
    })
    .optional()
    .meta({ description: 'A shared location (`location`).' }),
  buttons: z
    .array(z.object({ id: z.string().meta({ description: 'The button\'s id.', example: 'yes' }), text: z.string().meta({ description: 'Its label.', example: 'Yes' }) }))
    .optional()
    .meta({ description: 'The buttons sent (`buttons`).' }),
  footer: z.string().optional().meta({ description: 'Small print under the text (`buttons`).', example: 'Reply to choose' }),
  /** A poll sent through the API: its question, its options and whether several may be chosen. */
  poll: z
    .object({
      question: z.string().meta({ description: 'The question.', example: 'Which day suits you?' }),
      options: z.array(z.string()).meta({ description: 'The options, in the order sent.', example: ['Tuesday', 'Wednesday'] }),
      multipleAnswers: z.boolean().meta({ description: 'Whether a contact may choose several options.', example: false }),
    })
    .optional()
    .meta({ description: 'The poll sent (`poll`); contacts\' votes arrive as `poll_vote` messages.' }),
  /** A contact card: the name shown and the vCard text. */
  contact: z
    .object({
      displayName: z.string().max(1024).meta({ description: 'The name shown.', example: 'Ana Lima' }),
      vcard: z.string().max(65_536).meta({ description: 'The vCard text.', example: 'BEGIN:VCARD\nVERSION:3.0\nFN:Ana Lima\nEND:VCARD' }),
    })
    .optional()
    .meta({ description: 'A contact card (`contact`).' }),
  /** A vote on a poll: the poll's message id (ours when we sent it) and the options now chosen. */
  pollVote: z
    .object({
      pollMessageId: z.string().min(1).max(256).meta({ description: 'The poll\'s message id (ours when we sent it).', example: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K' }),
      options: z.array(z.string().max(1024)).meta({
        description: 'The options the contact has chosen now (a vote replaces the contact\'s earlier one; empty: the vote was withdrawn).',
        example: ['Tuesday'],
      }),
      unreadable: z
        .literal(true)
        .optional()
        .meta({ description: 'The vote could not be opened (a poll not sent through this session): `options` is then empty.', example: true }),
    })
    .optional()
    .meta({ description: 'A vote on a poll (`poll_vote`).' }),
  /** The button or list row a contact tapped: its id and its text. */
  buttonReply: z
    .object({
      id: z.string().max(1024).meta({ description: 'The id of the button tapped.', example: 'yes' }),
      text: z.string().max(1024).optional().meta({ description: 'Its label.', example: 'Yes' }),
    })
    .optional()
    .meta({ description: 'The button or list row a contact tapped (`button_reply`).' }),
  /** `unsupported`: the network's name of the message type. */
  rawType: z.string().max(128).optional().meta({ description: 'The network\'s name of the message type (`unsupported`).', example: 'pollCreationMessage' }),
  /**
   * The account's message contents were erased (crypto-shredding): none of the content fields of
   * its type are left, `text` reads `[erased]`; `type`, the parties, times and status remain.
   */
  erased: z
    .literal(true)
    .optional()
    .meta({ description: 'Present once the account\'s message contents were erased: no content field of its `type` is left and `text` reads `[erased]`.', example: true }),
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
  from: Phone.nullable().meta({ description: 'The sender\'s number (for outbound, the linked number; null while it is not known yet).', example: '15557654321' }),
  to: Phone.meta({ description: 'The recipient\'s number.', example: '15551234567' }),
  fromLid: z.string().max(64).optional().meta({ description: 'The sender\'s LID when the network named it by one.', example: '915557654321@lid' }),
  /** Contacts' current reactions to this message (a removed reaction is gone). */
  reactions: z
    .array(
      z.object({
        from: Phone.meta({ description: 'Who reacted.', example: '15551234567' }),
        emoji: z.string().max(32).meta({ description: 'The reaction.', example: '👍' }),
      }),
    )
    .optional()
    .meta({ description: 'Contacts\' current reactions (a removed reaction is gone).' }),
  type: HistoryMessageType,
  quotedMessageId: z
    .string()
    .max(256)
    .nullable()
    .meta({ description: 'The message this one replies to: our `msg_…` id when it is one of ours, else the network\'s id.', example: null }),
  status: MessageStatus.optional(),
  deliveredAt: DELIVERED_AT.optional(),
  readAt: READ_AT.optional(),
  error: MessageFailure.optional(),
  timestamp: IsoTimestamp.meta({ description: 'When it was sent or received.', example: '2026-11-21T10:15:30.000Z' }),
});
export type HistoryItem = z.infer<typeof HistoryItem>;
