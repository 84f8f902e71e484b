import { createHash } from 'node:crypto';
import { aesDecryptWithIV, getMediaKeys, normalizeMessageContent } from '@whiskeysockets/baileys';
import type { MediaType, proto } from '@whiskeysockets/baileys';
import type { ReceivedMessage } from './model.js';

/** The decoded content of a message, without the envelope (id, sender, time). */
export type Content = Omit<ReceivedMessage, 'id' | 'from' | 'receivedAt' | 'repeats'>;

/** Reads an uploaded (encrypted) media blob by its direct path. */
export type MediaReader = (directPath: string) => Buffer | undefined;

type MediaMessage = proto.Message.IImageMessage &
  proto.Message.IVideoMessage &
  proto.Message.IAudioMessage &
  proto.Message.IDocumentMessage;

/** SHA-256 of the plaintext, after decrypting the blob as the recipient would (the last 10 bytes are the MAC). */
const plaintextSha256 = async (media: MediaMessage, kind: MediaType, read: MediaReader): Promise<string | undefined> => {
  const blob = media.directPath ? read(media.directPath) : undefined;
  if (!blob || !media.mediaKey || blob.length < 10) return undefined;
  const { iv, cipherKey } = await getMediaKeys(media.mediaKey, kind);
  const plaintext = aesDecryptWithIV(blob.subarray(0, blob.length - 10), cipherKey, iv);
  return createHash('sha256').update(plaintext).digest('hex');
};

const quotedId = (info: proto.IContextInfo | null | undefined): { quotedId?: string } =>
  info?.stanzaId ? { quotedId: info.stanzaId } : {};

const mediaContent = async (type: 'image' | 'video' | 'audio' | 'document', media: MediaMessage, read: MediaReader): Promise<Content> => {
  const sha256 = await plaintextSha256(media, type, read);
  return {
    type,
    ...(media.caption ? { caption: media.caption } : {}),
    ...(media.fileName ? { filename: media.fileName } : {}),
    ...(media.mimetype ? { mimetype: media.mimetype } : {}),
    ...(sha256 ? { sha256 } : {}),
    ...quotedId(media.contextInfo),
  };
};

const locationContent = (location: proto.Message.ILocationMessage): Content => ({
  type: 'location',
  latitude: location.degreesLatitude ?? 0,
  longitude: location.degreesLongitude ?? 0,
  ...(location.name ? { name: location.name } : {}),
  ...(location.address ? { address: location.address } : {}),
  ...quotedId(location.contextInfo),
});

const buttonsContent = (buttons: proto.Message.IButtonsMessage): Content => ({
  type: 'buttons',
  text: buttons.contentText ?? '',
  ...(buttons.footerText ? { footer: buttons.footerText } : {}),
  buttons: (buttons.buttons ?? []).map((b) => ({ id: b.buttonId ?? '', text: b.buttonText?.displayText ?? '' })),
  ...quotedId(buttons.contextInfo),
});

type Button = { id: string; text: string };

/** Native-flow buttons: only `quick_reply` ones carry an id and a label (`buttonParamsJson`). */
const nativeFlowButtons = (flow: proto.Message.InteractiveMessage.INativeFlowMessage | null | undefined): Button[] =>
  (flow?.buttons ?? []).flatMap((b) => {
    try {
      const params = JSON.parse(b.buttonParamsJson ?? '{}') as { id?: unknown; display_text?: unknown };
      return [{ id: String(params.id ?? ''), text: String(params.display_text ?? '') }];
    } catch {
      return [];
    }
  });

const interactiveContent = (m: proto.Message.IInteractiveMessage): Content => ({
  type: 'buttons',
  text: m.body?.text ?? '',
  ...(m.footer?.text ? { footer: m.footer.text } : {}),
  buttons: nativeFlowButtons(m.nativeFlowMessage),
  ...quotedId(m.contextInfo),
});

const templateContent = (t: proto.Message.TemplateMessage.IHydratedFourRowTemplate): Content => ({
  type: 'buttons',
  text: t.hydratedContentText ?? '',
  ...(t.hydratedFooterText ? { footer: t.hydratedFooterText } : {}),
  buttons: (t.hydratedButtons ?? []).flatMap((b) => (b.quickReplyButton ? [{ id: b.quickReplyButton.id ?? '', text: b.quickReplyButton.displayText ?? '' }] : [])),
});

/**
 * A poll as the recipient's phone shows it: one answer (`pollCreationMessageV3`, or a selectable
 * count of 1) or several (`pollCreationMessage` with 0 = any number). The secret comes from the
 * outer message's `messageContextInfo`: without it the phone could not vote.
 */
const pollContent = (poll: proto.Message.IPollCreationMessage, secret: Uint8Array | null | undefined): Content => ({
  type: 'poll',
  poll: {
    question: poll.name ?? '',
    options: (poll.options ?? []).map((o) => o.optionName ?? ''),
    multipleAnswers: (poll.selectableOptionsCount ?? 0) !== 1,
  },
  ...(secret && secret.length > 0 ? { pollSecret: Buffer.from(secret).toString('base64') } : {}),
  ...quotedId(poll.contextInfo),
});

/** Summarizes what a recipient sees; `undefined` for protocol-only messages (keys, receipts, ...). */
export const describeMessage = async (raw: proto.IMessage, read: MediaReader): Promise<Content | undefined> => {
  const m = normalizeMessageContent(raw);
  if (!m) return undefined;
  if (m.conversation) return { type: 'text', text: m.conversation };
  if (m.extendedTextMessage) return { type: 'text', text: m.extendedTextMessage.text ?? '', ...quotedId(m.extendedTextMessage.contextInfo) };
  if (m.imageMessage) return mediaContent('image', m.imageMessage, read);
  if (m.videoMessage) return mediaContent('video', m.videoMessage, read);
  if (m.audioMessage) return mediaContent('audio', m.audioMessage, read);
  if (m.documentMessage) return mediaContent('document', m.documentMessage, read);
  if (m.locationMessage) return locationContent(m.locationMessage);
  if (m.liveLocationMessage) return locationContent(m.liveLocationMessage);
  if (m.buttonsMessage) return buttonsContent(m.buttonsMessage);
  if (m.interactiveMessage) return interactiveContent(m.interactiveMessage);
  if (m.templateMessage?.hydratedTemplate) return templateContent(m.templateMessage.hydratedTemplate);
  const poll = m.pollCreationMessageV3 ?? m.pollCreationMessage ?? m.pollCreationMessageV2;
  if (poll) return pollContent(poll, m.messageContextInfo?.messageSecret ?? raw.messageContextInfo?.messageSecret);
  return undefined;
};
