import { ApiError } from '@switchboard/contracts';
import type { SentContentReply, SentContentRequest } from '@switchboard/contracts';
import type { MessageStore } from '../application/message-store.js';
import type { MessageStatusQueries } from '../projections/message-status/queries.js';
import { matchNetworkId } from '../receipts/record-receipt.js';
import { deliverCommand } from './delivery.js';
import { resolveQuoted } from './quoted.js';

/**
 * How long the network id may take to reach the read model: a contact's phone can ask for a
 * message again moments after the network acknowledged it, before its MessageSent was projected.
 * Sessions holds Baileys' receipt handling while it waits, so this stays short.
 */
const MATCH_WITHIN_MS = 2_000;

export interface SentContentOptions {
  messages: MessageStore;
  statuses: MessageStatusQueries;
}

/**
 * `sb.v1.messaging.sentContent`: a message this session got onto the network, as sessions
 * delivered it, for sessions to send it again under the same network id when the recipient's
 * phone could not decrypt it (a retry receipt). The message stream is the durable record, so this
 * works after any restart; an erased content (crypto-shredding) is never handed out again.
 */
export async function sentContent(request: SentContentRequest, o: SentContentOptions): Promise<SentContentReply> {
  const messageId = await matchNetworkId(request, o.statuses, MATCH_WITHIN_MS);
  if (messageId === null) return { message: null };
  const state = await o.messages.load(messageId);
  if (state.status === 'absent' || state.status === 'pending' || state.status === 'failed') return { message: null };
  if (state.accountId !== request.accountId || state.sessionId !== request.sessionId || state.content.type === 'erased') return { message: null };
  let quoted = null;
  if (state.quotedMessageId !== null) {
    try {
      quoted = await resolveQuoted(o.statuses, o.messages, { ...state, quotedMessageId: state.quotedMessageId });
    } catch (error) {
      // The quoted message is gone from the record: the message goes again, without its quote.
      if (!(error instanceof ApiError)) throw error;
    }
  }
  return { message: deliverCommand({ ...state, content: state.content }, quoted) };
}
