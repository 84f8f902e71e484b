import { generateWAMessage } from '@whiskeysockets/baileys';
import type { AnyMessageContent, WAMessage, WASocket, proto } from '@whiskeysockets/baileys';
import type { OutgoingContent } from '../driver.js';
import { buttonsMessageProto, locationMessageContent, mediaMessageContent, pollMessageContent } from './content.js';

export interface ResendContext {
  /** The chat the retry receipt came from (the contact's LID or number). */
  jid: string;
  messageId: string;
  /** This device's own jid (Baileys' `userJid`). */
  userJid: string;
  /** The message a text quotes, as the first send quoted it. */
  quoted: (quotedId: string) => Pick<WAMessage, 'key' | 'message'>;
  /** The poll's secret, derived from its id: the same as in the first send. */
  pollSecret: (messageId: string) => Uint8Array;
}

/**
 * The message a recipient asked for again, built from our record the way its first send built it:
 * the same text, quote, location, buttons, poll (with the same secret, so votes still open), and
 * the same media bytes, uploaded again (the network's copy may be gone; the recipient downloads
 * whichever the message names). Baileys encrypts it anew and sends it under the same id.
 */
export async function messageToResend(socket: WASocket, content: OutgoingContent, context: ResendContext): Promise<proto.IMessage | undefined> {
  if (content.type === 'buttons') return buttonsMessageProto(content.buttons);
  const quoted = content.type === 'text' && content.quotedId !== undefined ? { quoted: context.quoted(content.quotedId) as WAMessage } : {};
  const generated = await generateWAMessage(context.jid, anyContent(content, context), {
    userJid: context.userJid,
    upload: socket.waUploadToServer,
    messageId: context.messageId,
    ...quoted,
  });
  return generated.message ?? undefined;
}

function anyContent(content: Exclude<OutgoingContent, { type: 'buttons' }>, context: ResendContext): AnyMessageContent {
  switch (content.type) {
    case 'text':
      return { text: content.text };
    case 'media':
      return mediaMessageContent(content.media);
    case 'location':
      return locationMessageContent(content.location);
    case 'poll':
      return pollMessageContent(content.poll, context.pollSecret(context.messageId));
  }
}
