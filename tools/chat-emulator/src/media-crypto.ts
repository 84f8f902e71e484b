import { createCipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { getMediaKeys } from '@whiskeysockets/baileys';
import type { MediaType } from '@whiskeysockets/baileys';

/** Media as a sender's phone uploads it: AES-256-CBC under keys expanded from `mediaKey`, a 10-byte MAC appended. */
export interface EncryptedMedia {
  blob: Buffer;
  mediaKey: Buffer;
  fileSha256: Buffer;
  fileEncSha256: Buffer;
  fileLength: number;
}

const sha256 = (bytes: Buffer): Buffer => createHash('sha256').update(bytes).digest();

/**
 * Encrypts as WhatsApp clients do (Baileys' `encryptedStream`): ciphertext, then the first 10 bytes
 * of HMAC-SHA256(macKey, iv + ciphertext). The recipient verifies the MAC and the hashes.
 */
export const encryptMedia = async (plaintext: Buffer, kind: MediaType): Promise<EncryptedMedia> => {
  const mediaKey = randomBytes(32);
  const { iv, cipherKey, macKey } = await getMediaKeys(mediaKey, kind);
  const cipher = createCipheriv('aes-256-cbc', cipherKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  if (!macKey) throw new Error(`no MAC key for ${kind} media`);
  const mac = createHmac('sha256', macKey).update(iv).update(ciphertext).digest().subarray(0, 10);
  const blob = Buffer.concat([ciphertext, mac]);
  return { blob, mediaKey, fileSha256: sha256(plaintext), fileEncSha256: sha256(blob), fileLength: plaintext.length };
};

/**
 * A poll vote as WhatsApp encrypts it (the inverse of Baileys' `decryptPollVote`): AES-256-GCM
 * under a key derived from the poll's secret, the poll id, its creator and the voter.
 */
export const encryptPollVote = (
  selectedOptions: Buffer[],
  ctx: { pollEncKey: Buffer; pollMsgId: string; pollCreatorJid: string; voterJid: string },
  encode: (options: Buffer[]) => Uint8Array,
): { encPayload: Buffer; encIv: Buffer } => {
  const sign = Buffer.concat([Buffer.from(ctx.pollMsgId), Buffer.from(ctx.pollCreatorJid), Buffer.from(ctx.voterJid), Buffer.from('Poll Vote'), Buffer.from([1])]);
  const key0 = createHmac('sha256', Buffer.alloc(32)).update(ctx.pollEncKey).digest();
  const key = createHmac('sha256', key0).update(sign).digest();
  const encIv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, encIv);
  cipher.setAAD(Buffer.from(`${ctx.pollMsgId}\u0000${ctx.voterJid}`));
  const encrypted = Buffer.concat([cipher.update(encode(selectedOptions)), cipher.final(), cipher.getAuthTag()]);
  return { encPayload: encrypted, encIv };
};

/** Poll options are voted for by the SHA-256 of their text. */
export const pollOptionHash = (option: string): Buffer => sha256(Buffer.from(option));
