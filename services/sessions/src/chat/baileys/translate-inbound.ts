import { getContentType, isLidUser, isPnUser, jidDecode, normalizeMessageContent } from '@whiskeysockets/baileys';
import type { MediaType, WAMessage, WAMessageKey, proto } from '@whiskeysockets/baileys';
import type { InboundContent, InboundEvent, InboundMediaKind } from '../driver.js';

/** A received message before its media (if any) is downloaded. */
export interface TranslatedInbound {
  event: Omit<InboundEvent, 'content'> & { content: Exclude<InboundContent, { type: 'media' }> | { type: 'media'; media: Omit<Extract<InboundContent, { type: 'media' }>['media'], 'bytes'> } };
  /** The media node to download, and Baileys' media type for its keys. */
  download?: { media: DownloadableMedia; type: MediaType };
  /** A vote to open (on a poll we sent): the encrypted vote and the voter's jids. */
  vote?: { pollId: string; vote: proto.Message.IPollEncValue; voterJids: string[] };
}

export type DownloadableMedia = proto.Message.IImageMessage & { fileLength?: number | Long | null };
type Long = { toNumber(): number };

/** The sender's phone number and LID from a message key: LID-addressed keys carry the number as `remoteJidAlt`. */
export function senderOf(key: WAMessageKey): { phone?: string; lid?: string } {
  const jids = [key.remoteJid, key.remoteJidAlt].filter((j): j is string => typeof j === 'string');
  const phone = jids.find((j) => isPnUser(j));
  const lid = jids.find((j) => isLidUser(j));
  return { ...(phone ? { phone: jidDecode(phone)?.user } : {}), ...(lid ? { lid: jidDecode(lid)?.user } : {}) };
}

/**
 * A message whose key names the sender by LID alone, with the number from `numberOf` (Baileys'
 * LID mapping, stored with the credentials: learned from earlier stanzas and contact lookups);
 * undefined while no mapping is known.
 */
export async function withStoredNumber(message: WAMessage, numberOf: (lid: string) => Promise<string | null | undefined>): Promise<WAMessage | undefined> {
  const lid = [message.key.remoteJid, message.key.remoteJidAlt].find((jid): jid is string => typeof jid === 'string' && isLidUser(jid) === true);
  const pn = lid ? await numberOf(lid) : undefined;
  return pn ? withNumber(message, pn) : undefined;
}

/** The message with the sender's number (`pnJid`) beside its LID, as `sender_pn` would have put it. */
export function withNumber(message: WAMessage, pnJid: string): WAMessage {
  return { ...message, key: { ...message.key, remoteJidAlt: pnJid } };
}

/** Protocol traffic that rides on messages but is nothing a contact wrote. */
const SILENT = new Set<string>(['protocolMessage', 'senderKeyDistributionMessage', 'messageContextInfo']);

const MEDIA: Record<string, { type: MediaType; kind: (m: proto.Message.IAudioMessage) => InboundMediaKind }> = {
  imageMessage: { type: 'image', kind: () => 'image' },
  videoMessage: { type: 'video', kind: () => 'video' },
  audioMessage: { type: 'audio', kind: (m) => (m.ptt ? 'voice' : 'audio') },
  documentMessage: { type: 'document', kind: () => 'document' },
  stickerMessage: { type: 'sticker', kind: () => 'sticker' },
};

const DEFAULT_MIMETYPE: Record<InboundMediaKind, string> = {
  image: 'image/jpeg', video: 'video/mp4', audio: 'audio/mpeg', voice: 'audio/ogg', document: 'application/octet-stream', sticker: 'image/webp',
};

function quotedIdOf(content: proto.IMessage, type: string): string | undefined {
  const inner = (content as Record<string, { contextInfo?: proto.IContextInfo | null } | null | undefined>)[type];
  return inner?.contextInfo?.stanzaId ?? undefined;
}

/** What a contact sent, by kind; media without its bytes. */
function contentOf(content: proto.IMessage, type: string): TranslatedInbound['event']['content'] {
  const c = content;
  if (c.conversation != null) return { type: 'text', text: c.conversation };
  if (c.extendedTextMessage) return { type: 'text', text: c.extendedTextMessage.text ?? '' };
  const media = MEDIA[type];
  if (media) {
    const m = c[type as 'documentMessage'] as proto.Message.IDocumentMessage & proto.Message.IAudioMessage;
    const kind = media.kind(m);
    const caption = m.caption ?? undefined;
    const filename = m.fileName ?? undefined;
    return { type: 'media', media: { kind, mimetype: m.mimetype ?? DEFAULT_MIMETYPE[kind], ...(caption ? { caption } : {}), ...(filename ? { filename } : {}) } };
  }
  const location = c.locationMessage ?? c.liveLocationMessage;
  if (location) {
    const l = location as proto.Message.ILocationMessage;
    return { type: 'location', latitude: l.degreesLatitude ?? 0, longitude: l.degreesLongitude ?? 0, ...(l.name ? { name: l.name } : {}), ...(l.address ? { address: l.address } : {}) };
  }
  if (c.contactMessage) return { type: 'contact', displayName: c.contactMessage.displayName ?? '', vcard: c.contactMessage.vcard ?? '' };
  if (c.reactionMessage) return { type: 'reaction', targetId: c.reactionMessage.key?.id ?? '', emoji: c.reactionMessage.text ?? '' };
  // Opened by the driver, which holds the poll's secret (see toInbound).
  if (c.pollUpdateMessage) return { type: 'poll_vote', pollId: c.pollUpdateMessage.pollCreationMessageKey?.id ?? '', selectedOptionHashes: null };
  if (c.buttonsResponseMessage) {
    const b = c.buttonsResponseMessage;
    return { type: 'button_reply', id: b.selectedButtonId ?? '', ...(b.selectedDisplayText ? { text: b.selectedDisplayText } : {}) };
  }
  if (c.templateButtonReplyMessage) {
    const t = c.templateButtonReplyMessage;
    return { type: 'button_reply', id: t.selectedId ?? '', ...(t.selectedDisplayText ? { text: t.selectedDisplayText } : {}) };
  }
  if (c.interactiveResponseMessage) return nativeFlowReply(c.interactiveResponseMessage);
  if (c.listResponseMessage) {
    const l = c.listResponseMessage;
    return { type: 'button_reply', id: l.singleSelectReply?.selectedRowId ?? '', ...(l.title ? { text: l.title } : {}) };
  }
  return { type: 'unsupported', rawType: type.slice(0, 128) };
}

/**
 * A tap on a native-flow `quick_reply` button (the form Switchboard sends buttons in): the button's
 * id is in `paramsJson`, its label in the body.
 */
function nativeFlowReply(r: proto.Message.IInteractiveResponseMessage): TranslatedInbound['event']['content'] {
  let id = '';
  try {
    const params = JSON.parse(r.nativeFlowResponseMessage?.paramsJson ?? '{}') as { id?: unknown };
    if (typeof params.id === 'string') id = params.id;
  } catch {
    // Not JSON: a tap without an id (still told, as a reply).
  }
  const text = r.body?.text ?? undefined;
  return { type: 'button_reply', id, ...(text ? { text } : {}) };
}

/**
 * A contact's message as an `inbound` event (media still to download), or undefined for our own
 * messages, protocol messages, groups and senders without a phone number.
 */
export function toInbound(message: WAMessage): TranslatedInbound | undefined {
  const content = normalizeMessageContent(message.message);
  const type = getContentType(content);
  const sender = senderOf(message.key);
  if (message.key.fromMe || !content || !type || SILENT.has(type) || !sender.phone || !message.key.id) return undefined;
  const quotedId = quotedIdOf(content, type);
  const event = {
    id: message.key.id,
    from: sender.phone,
    ...(sender.lid ? { fromLid: sender.lid } : {}),
    sentAt: new Date(Number(message.messageTimestamp ?? 0) * 1000 || Date.now()),
    ...(quotedId ? { quotedId } : {}),
    content: contentOf(content, type),
  };
  const media = MEDIA[type];
  if (media) return { event, download: { media: content[type as 'imageMessage'] as DownloadableMedia, type: media.type } };
  const vote = ourPollVote(content, message.key);
  return vote ? { event, vote } : { event };
}

/** A vote on a poll we sent (Baileys turned the poll's key to our side: `fromMe`), to open. */
function ourPollVote(content: proto.IMessage, key: WAMessageKey): TranslatedInbound['vote'] {
  const update = content.pollUpdateMessage;
  const pollKey = update?.pollCreationMessageKey;
  if (!update?.vote || !pollKey?.fromMe || !pollKey.id) return undefined;
  const voterJids = [key.remoteJid, key.remoteJidAlt].filter((jid): jid is string => typeof jid === 'string');
  return { pollId: pollKey.id, vote: update.vote, voterJids };
}
