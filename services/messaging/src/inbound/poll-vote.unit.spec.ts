import { describe, expect, it } from 'vitest';
import { nameVote, pollOptionHash } from './poll-vote.js';
import type { ForwardedPollVote } from './poll-vote.js';

const POLL_ID = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K';
const poll = { messageId: POLL_ID, options: ['Tuesday', 'Wednesday', 'Thursday'] };
const vote = (selectedOptionHashes: string[] | null | undefined): ForwardedPollVote => ({
  type: 'poll_vote', pollNetworkId: '3EB0AA', options: [], ...(selectedOptionHashes === undefined ? {} : { selectedOptionHashes }),
});

describe('naming a vote from the poll we sent', () => {
  it('names the chosen options by their hashes, in the poll\'s order, and names our poll', () => {
    const hashes = [pollOptionHash('Thursday'), pollOptionHash('Tuesday')];
    expect(nameVote(vote(hashes), poll)).toEqual({ type: 'poll_vote', pollNetworkId: '3EB0AA', options: ['Tuesday', 'Thursday'], pollMessageId: POLL_ID });
  });

  it('hashes options as WhatsApp does: SHA-256 of the UTF-8 text, hex (upper-case hashes match too)', () => {
    expect(pollOptionHash('Tuesday')).toBe('7d8af1de1262f150187d5938bf649d6c35726970685f916d1ec6392a801b9762');
    expect(nameVote(vote([pollOptionHash('Wednesday').toUpperCase()]), poll).options).toEqual(['Wednesday']);
    expect(pollOptionHash('Café')).not.toBe(pollOptionHash('Cafe'));
  });

  it('an opened vote with nothing chosen is a withdrawn vote, not an unreadable one', () => {
    expect(nameVote(vote([]), poll)).toEqual({ type: 'poll_vote', pollNetworkId: '3EB0AA', options: [], pollMessageId: POLL_ID });
  });

  it('ignores a hash that names none of the poll\'s options', () => {
    expect(nameVote(vote([pollOptionHash('Friday'), pollOptionHash('Tuesday')]), poll).options).toEqual(['Tuesday']);
  });

  it('a vote the session could not open is unreadable, with no options', () => {
    expect(nameVote(vote(null), poll)).toEqual({ type: 'poll_vote', pollNetworkId: '3EB0AA', options: [], pollMessageId: POLL_ID, unreadable: true });
    // Forwarded before sessions opened votes: no hashes at all.
    expect(nameVote(vote(undefined), poll)).toMatchObject({ options: [], unreadable: true });
  });

  it('a vote on a poll this account did not send is unreadable and names only the network\'s poll id', () => {
    expect(nameVote(vote([pollOptionHash('Tuesday')]), null)).toEqual({ type: 'poll_vote', pollNetworkId: '3EB0AA', options: [], unreadable: true });
  });
});
