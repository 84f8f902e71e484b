import { randomBytes } from 'node:crypto';
import { proto } from '@whiskeysockets/baileys';
import type { MediaType } from '@whiskeysockets/baileys';
import { EmulatorError } from './errors.js';
import type { InboundKind, InboundMedia } from './inbound-spec.js';
import { encryptMedia, encryptPollVote, pollOptionHash } from './media-crypto.js';

/** Stores an encrypted upload on the network's media host: its URL and direct path. */
export type MediaUploader = (blob: Buffer) => { url: string; directPath: string };

/** Who is who in the message being built: jids as the contact's phone sees them. */
export interface Parties {
  /** The linked account as the contact addresses it. */
  accountJid: string;
  /** The contact itself. */
  contactJid: string;
  /** Whether the message `id` named by a reaction or a quote was sent by the linked account. */
  sentByAccount(id: string): boolean;
  /** The poll `id` the linked account sent this contact, as the contact's phone keeps it. */
  pollOf(id: string): ReceivedPoll | undefined;
}

/** A poll a contact received: its options and the secret its votes are encrypted with. */
export interface ReceivedPoll {
  options: readonly string[];
  multipleAnswers: boolean;
  secret: Buffer;
}

const MEDIA_FIELD: Record<InboundMedia['kind'], 'imageMessage' | 'videoMessage' | 'audioMessage' | 'documentMessage' | 'stickerMessage'> = {
  image: 'imageMessage',
  video: 'videoMessage',
  audio: 'audioMessage',
  document: 'documentMessage',
  sticker: 'stickerMessage',
};

const contextInfo = (quotedMessageId: string | undefined, parties: Parties): proto.IContextInfo | undefined => {
  if (quotedMessageId === undefined) return undefined;
  const participant = parties.sentByAccount(quotedMessageId) ? parties.accountJid : parties.contactJid;
  return { stanzaId: quotedMessageId, participant, quotedMessage: { conversation: '' } };
};

const mediaMessage = async (media: InboundMedia, upload: MediaUploader, context: proto.IContextInfo | undefined): Promise<proto.IMessage> => {
  const encrypted = await encryptMedia(media.bytes, media.kind as MediaType);
  const { url, directPath } = upload(encrypted.blob);
  const fields = {
    url,
    directPath,
    mediaKey: encrypted.mediaKey,
    fileSha256: encrypted.fileSha256,
    fileEncSha256: encrypted.fileEncSha256,
    fileLength: encrypted.fileLength,
    mimetype: media.mimetype,
    mediaKeyTimestamp: Math.floor(Date.now() / 1000),
    ...(media.caption === undefined ? {} : { caption: media.caption }),
    ...(media.filename === undefined ? {} : { fileName: media.filename }),
    ...(media.ptt ? { ptt: true } : {}),
    ...(context ? { contextInfo: context } : {}),
  };
  return { [MEDIA_FIELD[media.kind]]: fields };
};

/**
 * The protobuf message a contact's phone sends for one inbound kind. Media is encrypted and
 * uploaded first, as a phone does, so the recipient downloads and decrypts real bytes.
 */
export const buildInboundMessage = async (
  spec: InboundKind & { quotedMessageId?: string },
  parties: Parties,
  upload: MediaUploader,
): Promise<proto.IMessage> => {
  const context = contextInfo(spec.quotedMessageId, parties);
  const withContext = context ? { contextInfo: context } : {};
  switch (spec.kind) {
    case 'text':
      return context ? { extendedTextMessage: { text: spec.text, contextInfo: context } } : { conversation: spec.text };
    case 'media':
      return mediaMessage(spec.media, upload, context);
    case 'location': {
      const { latitude, longitude, name, address } = spec;
      return { locationMessage: { degreesLatitude: latitude, degreesLongitude: longitude, ...(name ? { name } : {}), ...(address ? { address } : {}), ...withContext } };
    }
    case 'contact':
      return { contactMessage: { displayName: spec.displayName, vcard: spec.vcard, ...withContext } };
    case 'reaction': {
      // The key as the reacting phone sees it: the account's message is not `fromMe` for it.
      const fromMe = !parties.sentByAccount(spec.messageId);
      return { reactionMessage: { key: { remoteJid: parties.accountJid, fromMe, id: spec.messageId }, text: spec.emoji, senderTimestampMs: Date.now() } };
    }
    case 'pollVote':
      return { pollUpdateMessage: pollUpdate(spec, parties) };
    case 'buttonReply':
      return {
        buttonsResponseMessage: { selectedButtonId: spec.buttonId, ...(spec.text === undefined ? {} : { selectedDisplayText: spec.text }), type: 1, ...withContext },
      };
  }
};

/**
 * A vote as a phone sends it: the chosen options' SHA-256 hashes, encrypted with the poll's secret
 * under a key bound to the poll's id, its creator and the voter (each named as the chat addresses
 * them: LIDs in a LID-addressed chat, as whatsmeow's `EncryptPollVote` votes with its own LID). A
 * poll this contact received from the linked account is voted on with its real secret, and only
 * with its own options; on any other id the phone has no secret, so it uses a random one and the
 * recipient gets a vote it cannot open (as a device that lost the poll would).
 */
const pollUpdate = (spec: Extract<InboundKind, { kind: 'pollVote' }>, parties: Parties): proto.Message.IPollUpdateMessage => {
  const fromAccount = parties.sentByAccount(spec.pollMessageId);
  const poll = fromAccount ? parties.pollOf(spec.pollMessageId) : undefined;
  if (poll) checkVote(spec, poll);
  const vote = encryptPollVote(
    spec.options.map(pollOptionHash),
    {
      pollEncKey: poll?.secret ?? randomBytes(32),
      pollMsgId: spec.pollMessageId,
      pollCreatorJid: fromAccount ? parties.accountJid : parties.contactJid,
      voterJid: parties.contactJid,
    },
    (selectedOptions) => proto.Message.PollVoteMessage.encode({ selectedOptions }).finish(),
  );
  return {
    pollCreationMessageKey: { remoteJid: parties.accountJid, fromMe: !fromAccount, id: spec.pollMessageId },
    vote,
    senderTimestampMs: Date.now(),
  };
};

/** A phone offers only the poll's own options, each once, and one of them unless several are allowed. */
const checkVote = (spec: Extract<InboundKind, { kind: 'pollVote' }>, poll: ReceivedPoll): void => {
  const unknown = spec.options.find((option) => !poll.options.includes(option));
  if (unknown !== undefined) throw new EmulatorError(400, 'invalid_request', `"${unknown}" is not an option of poll ${spec.pollMessageId}`);
  if (new Set(spec.options).size !== spec.options.length) throw new EmulatorError(400, 'invalid_request', 'pollVote.options must not repeat an option');
  if (!poll.multipleAnswers && spec.options.length > 1) throw new EmulatorError(400, 'invalid_request', `poll ${spec.pollMessageId} allows one answer`);
};
