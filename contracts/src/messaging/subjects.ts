import { defineSubject } from '../bus/subject.js';
import { z } from 'zod';
import { AccountId, SessionId } from '../common/ids.js';
import { DeliverMessageCommand } from '../sessions/commands.js';
import { ListMessagesQuery, ListMessagesResult, MessageLookupView } from '../messages/history-http.js';
import { Sha256Hex } from '../messages/content.js';
import { RecordInboundCommand, RecordInboundReply } from './inbound.js';
import { EraseContentsReply } from './sealed-content.js';
import {
  MessageRef,
  RecordReceiptsCommand,
  RecordReceiptsReply,
  SendButtonsCommand,
  SendLocationCommand,
  SendMediaCommand,
  SendMediaReply,
  SendMessageReply,
  SendPollCommand,
  SendTextCommand,
} from './commands.js';

/** sb.v1.messaging.history: GET /v1/messages with the account; `limit` already defaulted. */
export const HistoryRequest = ListMessagesQuery.extend({ accountId: AccountId });
export type HistoryRequest = z.infer<typeof HistoryRequest>;

/** Reply of sb.v1.messaging.media: where a media message's bytes are (the blob store) and their type. */
export const MessageMediaRef = z.object({ sha256: Sha256Hex, mimetype: z.string().min(1).max(255), size: z.number().int().min(0) });
export type MessageMediaRef = z.infer<typeof MessageMediaRef>;

/** sb.v1.messaging.sentContent: a message this session sent, by the id it carries on the network. */
export const SentContentRequest = z.object({ accountId: AccountId, sessionId: SessionId, networkMessageId: z.string().min(1).max(256) });
export type SentContentRequest = z.infer<typeof SentContentRequest>;

/**
 * Its reply: the message as sessions delivered it (media by blob reference), for sessions to send
 * it again under the same network id when a contact's phone asks (a retry receipt); null when no
 * such message reached the network, or its content was erased (it must not go out again).
 */
export const SentContentReply = z.object({ message: DeliverMessageCommand.nullable() });
export type SentContentReply = z.infer<typeof SentContentReply>;

/**
 * Request/reply subjects of the messaging service (queue group `sb.v1.messaging`).
 * A send replies within SWITCHBOARD_SEND_DEADLINE_MS with status `sent`, or `pending` past it;
 * the caller's bus timeout must be longer than that deadline.
 */
export const MessagingSubjects = {
  sendText: defineSubject('sb.v1.messaging.sendText', SendTextCommand, SendMessageReply),
  sendMedia: defineSubject('sb.v1.messaging.sendMedia', SendMediaCommand, SendMediaReply),
  sendLocation: defineSubject('sb.v1.messaging.sendLocation', SendLocationCommand, SendMessageReply),
  sendButtons: defineSubject('sb.v1.messaging.sendButtons', SendButtonsCommand, SendMessageReply),
  sendPoll: defineSubject('sb.v1.messaging.sendPoll', SendPollCommand, SendMessageReply),
  get: defineSubject('sb.v1.messaging.get', MessageRef, MessageLookupView),
  recordInbound: defineSubject('sb.v1.messaging.recordInbound', RecordInboundCommand, RecordInboundReply),
  history: defineSubject('sb.v1.messaging.history', HistoryRequest, ListMessagesResult),
  media: defineSubject('sb.v1.messaging.media', MessageRef, MessageMediaRef),
  recordReceipts: defineSubject('sb.v1.messaging.recordReceipts', RecordReceiptsCommand, RecordReceiptsReply),
  sentContent: defineSubject('sb.v1.messaging.sentContent', SentContentRequest, SentContentReply),
  /** Crypto-shredding (issue 16): deletes the account's media blobs and destroys its data keys; idempotent. */
  eraseContents: defineSubject('sb.v1.messaging.eraseContents', z.object({ accountId: AccountId }), EraseContentsReply),
} as const;
