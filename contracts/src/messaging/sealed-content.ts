import { z } from 'zod';
import { AccountId } from '../common/ids.js';
import { IsoTimestamp } from '../common/time.js';
import { MessageType } from '../messages/status.js';

// Crypto-shredding (issue 16, item 4): what a message says (texts, captions, media descriptors,
// places, contact cards, poll options) is recorded sealed with AES-256-GCM under a data key of its
// account. Destroying the key erases every content it sealed, while the facts around them (ids,
// times, statuses, counts) and the hash chain over the stored events stay as they were.

/** What every erased content reads as. */
export const ERASED_TEXT = '[erased]';

/**
 * Data key: the account's key that seals its message contents. `dk_` + ULID, so a later key of an
 * account (one minted after an erasure) has a greater id than every key before it.
 */
export const DataKeyId = z.string().regex(/^dk_[0-7][0-9A-HJKMNP-TV-Z]{25}$/, 'must be a data key id: "dk_" followed by a 26-character ULID');
export type DataKeyId = z.infer<typeof DataKeyId>;

/** The kinds of content a contact can send (InboundContent's `type`s; a contracts test keeps them equal). */
export const InboundContentType = z.enum(['text', 'media', 'location', 'contact', 'poll_vote', 'button_reply', 'unsupported']);
export type InboundContentType = z.infer<typeof InboundContentType>;

/** AES-256-GCM output, base64: format byte, IV, tag and ciphertext (SecretCipher's layout). */
const SealedBytes = z.string().min(40).max(400_000).regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64');

/**
 * A content as recorded from issue 16 on: its `type` stays readable (the status lookup and the
 * history show what kind of message it was, also once erased); everything else is `sealed`,
 * bound to the account, the message and `keyId` (a sealed content copied into another message
 * does not open).
 */
function sealedContent<T extends z.ZodType<string>>(type: T) {
  return z.object({ type, keyId: DataKeyId, sealed: SealedBytes });
}

export const SealedMessageContent = sealedContent(MessageType);
export type SealedMessageContent = z.infer<typeof SealedMessageContent>;
export const SealedInboundContent = sealedContent(InboundContentType);
export type SealedInboundContent = z.infer<typeof SealedInboundContent>;

/** Whether a recorded content is sealed (MessageAccepted@3, MessageReceived@2) or in plain text (written before). */
export function isSealed<C extends { type: string }>(content: C | SealedMessageContent | SealedInboundContent): content is Extract<typeof content, { sealed: string }> {
  return 'sealed' in content && typeof content.sealed === 'string';
}

/** Reply of sb.v1.messaging.eraseContents: what erasing the account's message contents did. */
export const EraseContentsReply = z.object({
  accountId: AccountId,
  erasedAt: IsoTimestamp,
  /** Data keys destroyed by this request (0 when a repeat found nothing new to erase). */
  keysDestroyed: z.number().int().min(0),
  /** Media blobs of the account's messages deleted by this request. */
  blobsDeleted: z.number().int().min(0),
});
export type EraseContentsReply = z.infer<typeof EraseContentsReply>;
