import { defineSubject } from '../bus/subject.js';
import { MessageStatusView } from '../messages/http.js';
import {
  MessageRef,
  RecordReceiptCommand,
  RecordReceiptReply,
  SendButtonsCommand,
  SendLocationCommand,
  SendMediaCommand,
  SendMediaReply,
  SendMessageReply,
  SendTextCommand,
} from './commands.js';

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
  get: defineSubject('sb.v1.messaging.get', MessageRef, MessageStatusView),
  recordReceipt: defineSubject('sb.v1.messaging.recordReceipt', RecordReceiptCommand, RecordReceiptReply),
} as const;
