import { createHash } from 'node:crypto';
import type { ForwardedContent, InboundContent } from '@switchboard/contracts';

/** A vote as sessions forwards it: the chosen options' hashes when it could open the vote. */
export type ForwardedPollVote = Extract<ForwardedContent, { type: 'poll_vote' }>;
/** A vote as messaging records it: the chosen options by name. */
export type RecordedPollVote = Extract<InboundContent, { type: 'poll_vote' }>;

/** The poll a vote belongs to, when Switchboard sent it: our id and its options, in the order sent. */
export interface SentPoll {
  messageId: string;
  options: readonly string[];
}

/** WhatsApp votes for an option by the SHA-256 of its text (hex here). */
export const pollOptionHash = (option: string): string => createHash('sha256').update(option, 'utf8').digest('hex');

/**
 * Names the options a vote chose, from the poll it belongs to: in the poll's order, each once.
 * A vote the session could not open (no hashes), or on a poll Switchboard did not send, is
 * recorded as `unreadable` with no options; an empty selection that was opened is a withdrawn vote.
 */
export function nameVote(vote: ForwardedPollVote, poll: SentPoll | null): RecordedPollVote {
  const pollMessageId = poll ? { pollMessageId: poll.messageId } : {};
  const hashes = vote.selectedOptionHashes;
  if (hashes === null || hashes === undefined || poll === null) {
    return { type: 'poll_vote', pollNetworkId: vote.pollNetworkId, options: [], ...pollMessageId, unreadable: true };
  }
  const chosen = new Set(hashes.map((hash) => hash.toLowerCase()));
  const options = poll.options.filter((option) => chosen.has(pollOptionHash(option)));
  return { type: 'poll_vote', pollNetworkId: vote.pollNetworkId, options, ...pollMessageId };
}
