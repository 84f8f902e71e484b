import { createHmac, hkdfSync } from 'node:crypto';
import { decryptPollVote, jidNormalizedUser } from '@whiskeysockets/baileys';
import type { AuthenticationCreds, proto } from '@whiskeysockets/baileys';

/**
 * Poll secrets. A poll carries a 32-byte `messageSecret` (Baileys: `messageContextInfo`) that its
 * recipients use to encrypt their votes, so only the poll's sender can read them. Ours are derived
 * from the device's own noise private key and the poll's network id rather than stored: the same
 * id always gets the same secret (a poll written again on a new socket, redelivered after a crash
 * or resent on a retry receipt keeps it), and any replica holding the credentials opens the votes,
 * also after a restart. The noise key never leaves the credentials store (the QR shows only its
 * public half), and HMAC keeps one poll's secret from telling anything of another's.
 */
export type PollSecretKey = Buffer;

const KEY_INFO = 'switchboard poll message secret v1';

/** The key every poll secret of this device derives from (HKDF-SHA256 of the noise private key). */
export function pollSecretKey(creds: Pick<AuthenticationCreds, 'noiseKey'>): PollSecretKey {
  return Buffer.from(hkdfSync('sha256', creds.noiseKey.private, Buffer.alloc(0), KEY_INFO, 32));
}

/** The `messageSecret` of the poll sent under network id `messageId`. */
export function pollMessageSecret(key: PollSecretKey, messageId: string): Buffer {
  return createHmac('sha256', key).update(messageId, 'utf8').digest();
}

/** What a vote is opened with: our poll's secret and every name the creator and the voter may go by. */
export interface VoteContext {
  secret: Buffer;
  pollId: string;
  /** Our own jids (phone number and LID, without device). */
  creatorJids: readonly (string | null | undefined)[];
  /** The voter's jids as the message key names them (LID and phone number). */
  voterJids: readonly (string | null | undefined)[];
}

/**
 * The chosen options' SHA-256 hashes (hex) of a vote on our poll, or null when it does not open.
 * The vote's key binds the creator's and the voter's jids, and clients use their LID where the
 * chat is LID-addressed (whatsmeow's `EncryptPollVote` votes as its own LID) and the phone number
 * otherwise (Baileys' `getKeyAuthor` prefers the alternate jid), so each pairing is tried: AES-GCM
 * refuses every wrong one.
 */
export function openPollVote(vote: proto.Message.IPollEncValue | null | undefined, context: VoteContext): string[] | null {
  if (!vote?.encPayload || !vote.encIv) return null;
  for (const pollCreatorJid of distinctJids(context.creatorJids)) {
    for (const voterJid of distinctJids(context.voterJids)) {
      try {
        const opened = decryptPollVote(vote, { pollEncKey: context.secret, pollCreatorJid, pollMsgId: context.pollId, voterJid });
        return opened.selectedOptions.map((hash) => Buffer.from(hash).toString('hex'));
      } catch {
        // Not this pairing (or not our poll): the next one, else unreadable.
      }
    }
  }
  return null;
}

function distinctJids(jids: readonly (string | null | undefined)[]): string[] {
  return [...new Set(jids.filter((jid): jid is string => typeof jid === 'string' && jid.length > 0).map((jid) => jidNormalizedUser(jid)))];
}
