import type { ForwardedContent, MessageEvent, RecordInboundCommand } from '@switchboard/contracts';
import type { MessageFact } from '../contents/opened-content.js';

/** A received message's stream: nothing yet, or recorded (by the first delivery). */
export type InboundState = { recorded: false } | { recorded: true };

export const NOT_RECORDED: InboundState = { recorded: false };

/** What the handler resolved beside the command: our ids of the messages it names, and when. */
export interface InboundFacts {
  messageId: string;
  /** Our id of the quoted message (a reply), or of the reacted message (a reaction), if known. */
  linkedMessageId: string | null;
  receivedAt: string;
}

type Reaction = Extract<ForwardedContent, { type: 'reaction' }>;

/**
 * The rules of a received message: recorded once, whatever number of times the network delivers
 * it. A reaction is a MessageReactionReceived, everything else a MessageReceived.
 */
export function decideInbound(command: RecordInboundCommand, facts: InboundFacts, state: InboundState): MessageEvent[] {
  if (state.recorded) return [];
  const { accountId, sessionId, networkMessageId, from, fromLid, to, sentAt, quotedNetworkId, content } = command;
  const common = { messageId: facts.messageId, accountId, sessionId, networkMessageId, from, ...(fromLid ? { fromLid } : {}), to, sentAt, receivedAt: facts.receivedAt };
  if (content.type === 'reaction') return [reaction(common, content, facts.linkedMessageId)];
  return [{ type: 'MessageReceived', version: 1, data: { ...common, content, quotedNetworkId, quotedMessageId: facts.linkedMessageId } }];
}

function reaction(common: Omit<Extract<MessageEvent, { type: 'MessageReactionReceived' }>['data'], 'targetNetworkId' | 'targetMessageId' | 'emoji'>, content: Reaction, target: string | null): MessageEvent {
  return { type: 'MessageReactionReceived', version: 1, data: { ...common, targetNetworkId: content.targetNetworkId, targetMessageId: target, emoji: content.emoji } };
}

/** Folds a received message's stream. */
export function evolveInbound(state: InboundState, event: MessageFact): InboundState {
  return event.type === 'MessageReceived' || event.type === 'MessageReactionReceived' ? { recorded: true } : state;
}
