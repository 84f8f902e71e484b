import { messageEventParser, messageStream } from '@switchboard/contracts';
import type { RecordInboundCommand, RecordInboundReply } from '@switchboard/contracts';
import type { EventStore } from '@switchboard/eventstore';
import { eventMetadata, executeCommand } from '@switchboard/service-kit';
import type { AggregateFold, ProjectionRunner } from '@switchboard/service-kit';
import type { Clock } from '../application/clock.js';
import type { MessageHistoryQueries } from '../projections/message-history/queries.js';
import type { MessageStatusQueries } from '../projections/message-status/queries.js';
import { NOT_RECORDED, decideInbound, evolveInbound } from './decide.js';
import type { InboundState } from './decide.js';
import { inboundMessageId } from './inbound-id.js';

const inboundFold: AggregateFold<InboundState, ReturnType<typeof messageEventParser.parse>> = {
  initial: NOT_RECORDED,
  evolve: evolveInbound,
  parse: (raw) => messageEventParser.parse(raw),
};

export interface InboundDeps {
  store: EventStore;
  clock: Clock;
  statuses: MessageStatusQueries;
  history: MessageHistoryQueries;
  /** The history read model, waited on so a lookup right after the reply sees the message. */
  runner: ProjectionRunner;
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
  const result = await executeCommand(deps.store, messageStream(messageId), inboundFold, (state) => decideInbound(command, facts, state), metadata);
  if (result.position !== undefined) await deps.runner.waitForPosition(result.position);
  return { messageId, recorded: result.events.length > 0 };
}

/** Our id of a message the network names: one we sent, else one received before. */
function ourIdOf(deps: InboundDeps, command: RecordInboundCommand, networkId: string): string | null {
  return deps.statuses.messageIdOfNetworkId(command.accountId, command.sessionId, networkId) ?? deps.history.messageIdOfNetworkId(command.accountId, command.sessionId, networkId, 'in');
}
