import type { MessageEvent } from '@switchboard/contracts';
import type { MessageCommand } from './commands.js';
import { MessageNotAccepted } from './errors.js';
import type { AcceptedState, Message } from './state.js';

type Command<T extends MessageCommand['type']> = Extract<MessageCommand, { type: T }>;

/**
 * The message's rules. Every command is idempotent: repeating it (a retry, recovery, a duplicate
 * receipt) decides no new events. Status never goes backwards and `failed` is terminal.
 */
export function decide(command: MessageCommand, state: Message): MessageEvent[] {
  switch (command.type) {
    case 'AcceptMessage':
      return accept(command, state);
    case 'RecordSent':
      return recordSent(command, accepted(state));
    case 'RecordReceipt':
      return recordReceipt(command, accepted(state));
    case 'FailMessage':
      return fail(command, accepted(state));
    case 'RecordRefund':
      return recordRefund(command, accepted(state));
    default:
      return assertNever(command);
  }
}

function accepted(state: Message): AcceptedState {
  if (state.status === 'absent') throw new MessageNotAccepted();
  return state;
}

function accept(c: Command<'AcceptMessage'>, state: Message): MessageEvent[] {
  // The message id is minted once per request: seeing it again is the same request retried.
  if (state.status !== 'absent') return [];
  const { messageId, accountId, sessionId, to, content, quotedMessageId, idempotencyKeyHash, usageDay } = c;
  return [{
    type: 'MessageAccepted',
    version: 2,
    data: { messageId, accountId, sessionId, to, content, quotedMessageId, ...(c.typing ? { typing: true as const } : {}), idempotencyKeyHash, usageDay, acceptedAt: c.now.toISOString() },
  }];
}

function recordSent(c: Command<'RecordSent'>, state: AcceptedState): MessageEvent[] {
  // Already on the network (a redelivery answered again) or failed meanwhile: nothing changes.
  if (state.status !== 'pending') return [];
  return [{ type: 'MessageSent', version: 1, data: { messageId: state.messageId, networkMessageId: c.networkMessageId, sentAt: c.now.toISOString(), ...(c.from ? { from: c.from } : {}) } }];
}

function recordReceipt(c: Command<'RecordReceipt'>, state: AcceptedState): MessageEvent[] {
  const messageId = state.messageId;
  if (c.receipt === 'delivered') {
    return state.status === 'sent' ? [{ type: 'MessageDelivered', version: 1, data: { messageId, deliveredAt: c.now.toISOString() } }] : [];
  }
  // A read implies delivery: from `sent` it goes straight to `read`.
  return state.status === 'sent' || state.status === 'delivered'
    ? [{ type: 'MessageRead', version: 1, data: { messageId, readAt: c.now.toISOString() } }]
    : [];
}

function fail(c: Command<'FailMessage'>, state: AcceptedState): MessageEvent[] {
  // Only a message still waiting for the network can fail; anything later already happened.
  if (state.status !== 'pending') return [];
  return [{
    type: 'MessageFailed',
    version: 1,
    data: { messageId: state.messageId, code: c.code, message: c.message, refundable: c.refundable, failedAt: c.now.toISOString() },
  }];
}

function recordRefund(c: Command<'RecordRefund'>, state: AcceptedState): MessageEvent[] {
  if (state.status !== 'failed' || !state.refundDue) return [];
  return [{ type: 'MessageQuotaRefunded', version: 1, data: { messageId: state.messageId, usageDay: state.usageDay, refundedAt: c.now.toISOString() } }];
}

function assertNever(value: never): never {
  throw new Error(`unhandled command ${JSON.stringify(value)}`);
}
