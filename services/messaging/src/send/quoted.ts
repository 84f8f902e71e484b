import { ApiError } from '@switchboard/contracts';
import type { QuotedRef } from '@switchboard/contracts';
import type { MessageStore } from '../application/message-store.js';
import type { MessageStatusQueries } from '../projections/message-status/queries.js';

const notFound = (id: string) => new ApiError('MESSAGE_NOT_FOUND', `No message with id ${id} was sent through this session.`);

/**
 * The message a send quotes, as the network knows it: it must belong to the same account and
 * session and have reached the network (the network can only quote what it has).
 */
export async function resolveQuoted(
  statuses: MessageStatusQueries,
  messages: MessageStore,
  target: { accountId: string; sessionId: string; quotedMessageId: string },
): Promise<QuotedRef> {
  const { accountId, sessionId, quotedMessageId } = target;
  await messages.caughtUp();
  const record = statuses.find(accountId, quotedMessageId);
  if (record !== null) {
    if (record.sessionId !== sessionId || record.networkMessageId === null) throw notFound(quotedMessageId);
    return { messageId: quotedMessageId, networkMessageId: record.networkMessageId };
  }
  // Not in the read model yet (sent a moment ago through another replica): the stream decides.
  const state = await messages.load(quotedMessageId);
  if (state.status === 'absent' || state.accountId !== accountId || state.sessionId !== sessionId) throw notFound(quotedMessageId);
  if (state.status === 'pending' || state.status === 'failed') throw notFound(quotedMessageId);
  return { messageId: quotedMessageId, networkMessageId: state.networkMessageId };
}
