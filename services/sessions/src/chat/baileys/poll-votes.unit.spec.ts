import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { proto } from '@whiskeysockets/baileys';
import { openPollVote, pollMessageSecret, pollSecretKey } from './poll-votes.js';

const hash = (option: string) => createHash('sha256').update(option).digest();
const creds = (seed: number) => ({ noiseKey: { private: Buffer.alloc(32, seed), public: Buffer.alloc(32) } });

/** A vote as a WhatsApp client encrypts it (the inverse of Baileys' `decryptPollVote`). */
function encryptVote(options: string[], secret: Buffer, pollId: string, creator: string, voter: string): proto.Message.IPollEncValue {
  const sign = Buffer.concat([Buffer.from(pollId), Buffer.from(creator), Buffer.from(voter), Buffer.from('Poll Vote'), Buffer.from([1])]);
  const key = createHmac('sha256', createHmac('sha256', Buffer.alloc(32)).update(secret).digest()).update(sign).digest();
  const encIv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, encIv);
  cipher.setAAD(Buffer.from(`${pollId}\u0000${voter}`));
  const plaintext = proto.Message.PollVoteMessage.encode({ selectedOptions: options.map(hash) }).finish();
  return { encPayload: Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]), encIv };
}

const ME = { pn: '15550001111@s.whatsapp.net', lid: '915550001111@lid' };
const VOTER = { pn: '15552223333@s.whatsapp.net', lid: '915552223333@lid' };

describe('poll secrets', () => {
  it('are the same for the same device and poll id, and differ across polls and devices', () => {
    const key = pollSecretKey(creds(1));
    expect(pollMessageSecret(key, '3EB0AA')).toEqual(pollMessageSecret(pollSecretKey(creds(1)), '3EB0AA'));
    expect(pollMessageSecret(key, '3EB0AA')).toHaveLength(32);
    expect(pollMessageSecret(key, '3EB0AB')).not.toEqual(pollMessageSecret(key, '3EB0AA'));
    expect(pollMessageSecret(pollSecretKey(creds(2)), '3EB0AA')).not.toEqual(pollMessageSecret(key, '3EB0AA'));
    // The key is not the noise key itself.
    expect(key).not.toEqual(creds(1).noiseKey.private);
  });
});

describe('opening a vote on our poll', () => {
  const secret = pollMessageSecret(pollSecretKey(creds(1)), 'P1');
  const context = { secret, pollId: 'P1', creatorJids: [ME.lid, `${ME.pn.replace('@', ':3@')}`], voterJids: [VOTER.lid, VOTER.pn] };

  it.each([
    ['both by LID (a LID-addressed chat)', ME.lid, VOTER.lid],
    ['both by number (a PN-addressed chat)', ME.pn, VOTER.pn],
    ['the creator by number, the voter by LID', ME.pn, VOTER.lid],
  ])('%s: the chosen options\' hashes, hex', (_name, creator, voter) => {
    const vote = encryptVote(['Olives', 'Basil'], secret, 'P1', creator, voter);
    expect(openPollVote(vote, context)).toEqual([hash('Olives').toString('hex'), hash('Basil').toString('hex')]);
  });

  it('a withdrawn vote opens to no options', () => {
    expect(openPollVote(encryptVote([], secret, 'P1', ME.lid, VOTER.lid), context)).toEqual([]);
  });

  it('null when it does not open: another secret, another poll id, another voter, nothing to open', () => {
    expect(openPollVote(encryptVote(['a'], randomBytes(32), 'P1', ME.lid, VOTER.lid), context)).toBeNull();
    expect(openPollVote(encryptVote(['a'], secret, 'P2', ME.lid, VOTER.lid), context)).toBeNull();
    expect(openPollVote(encryptVote(['a'], secret, 'P1', ME.lid, '915559999999@lid'), context)).toBeNull();
    expect(openPollVote({}, context)).toBeNull();
    expect(openPollVote(undefined, context)).toBeNull();
  });
});
