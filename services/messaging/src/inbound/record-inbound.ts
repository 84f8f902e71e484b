import { messageStream } from '@switchboard/contracts';
import type { RecordInboundCommand, RecordInboundReply } from '@switchboard/contracts';
import type { EventStore } from '@switchboard/eventstore';
import { eventMetadata, executeCommand } from '@switchboard/service-kit';
import type { AggregateFold, ProjectionRunner } from '@switchboard/service-kit';
import type { Clock } from '../application/clock.js';
import type { MessageHistoryQueries } from '../projections/message-history/queries.js';
import type { MessageStatusQueries } from '../projections/message-status/queries.js';
import { NOT_RECORDED, decideInbound, evolveInbound } from './decide.js';
import type { InboundState } from './decide.js';
import type { MessageStore } from '../application/message-store.js';
import type { MessageFacts } from '../contents/message-facts.js';
import type { MessageFact } from '../contents/opened-content.js';
import { inboundMessageId } from './inbound-id.js';
import { nameVote } from './poll-vote.js';
import type { SentPoll } from './poll-vote.js';

/** A received message's stream: its content sealed as it is stored (MessageFacts). */
const inboundFold = (facts: MessageFacts): AggregateFold<InboundState, MessageFact> => ({
  initial: NOT_RECORDED,
  evolve: evolveInbound,
  parse: (raw) => facts.parse(raw),
  prepare: (recorded) => facts.prepare(recorded),
  encode: (fact) => facts.encode(fact),
});

export interface InboundDeps {
  store: EventStore;
  clock: Clock;
  statuses: MessageStatusQueries;
  history: MessageHistoryQueries;
  /** The history read model, waited on so a lookup right after the reply sees the message. */
  runner: ProjectionRunner;
  /** Our messages' streams: a vote is named from the poll it belongs to. */
  messages: Pick<MessageStore, 'load' | 'facts'>;
}

/**
 * `sb.v1.messaging.recordInbound`: a contact's message, forwarded by sessions, recorded once in
 * its own stream. A message the history already holds under this network id (even under another
 * timestamp) answers with that id instead of being recorded again.
 */
export async function recordInbound(command: RecordInboundCommand, deps: InboundDeps): Promise<RecordInboundReply> {
  const { accountId, sessionId, networkMessageId } = command;
  const known = deps.history.messageIdOfNetworkId(accountId, sessionId, networkMessageId, 'in');
  if (known !== null) return { messageId: known, recorded: false };
  const messageId = inboundMessageId(sessionId, networkMessageId, Date.parse(command.sentAt));
  const linked = command.content.type === 'reaction' ? command.content.targetNetworkId : command.quotedNetworkId;
  const facts = { messageId, linkedMessageId: linked === null ? null : ourIdOf(deps, command, linked), receivedAt: deps.clock.now().toISOString() };
  const metadata = eventMetadata({ accountId, now: deps.clock.now() });
  // A vote is recorded with its options by name, which only the poll we sent knows.
  const recorded = command.content.type === 'poll_vote' ? { ...command, content: nameVote(command.content, await sentPollOf(deps, command, command.content.pollNetworkId)) } : command;
  // The content is sealed as it is stored: the account's key must be at hand.
  if (command.content.type !== 'reaction') await deps.messages.facts.keys.sealingKey(accountId);
  const result = await executeCommand(deps.store, messageStream(messageId), inboundFold(deps.messages.facts), (state) => decideInbound(recorded, facts, state), metadata);
  if (result.position !== undefined) await deps.runner.waitForPosition(result.position);
  return { messageId, recorded: result.events.length > 0 };
}

/** The poll a vote names, when this account sent it through this session. */
async function sentPollOf(deps: InboundDeps, command: RecordInboundCommand, pollNetworkId: string): Promise<SentPoll | null> {
  const messageId = deps.statuses.messageIdOfNetworkId(command.accountId, command.sessionId, pollNetworkId);
  if (messageId === null) return null;
  const state = await deps.messages.load(messageId);
  if (state.status === 'absent' || state.accountId !== command.accountId || state.content.type !== 'poll') return null;
  return { messageId, options: state.content.options };
}

/** Our id of a message the network names: one we sent, else one received before. */
function ourIdOf(deps: InboundDeps, command: RecordInboundCommand, networkId: string): string | null {
  return deps.statuses.messageIdOfNetworkId(command.accountId, command.sessionId, networkId) ?? deps.history.messageIdOfNetworkId(command.accountId, command.sessionId, networkId, 'in');
}
