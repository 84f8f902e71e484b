import { generateWAMessage, unixTimestampSeconds } from '@whiskeysockets/baileys';
import type { AnyMessageContent, BinaryNode, WAMessage, WASocket, proto } from '@whiskeysockets/baileys';
import type { OutgoingContent } from '../driver.js';
import { buttonsBizNode, buttonsMessageProto, locationMessageContent, mediaMessageContent, pollMessageContent } from './content.js';

/**
 * One outgoing content in Baileys' terms, checked (a `RangeError` names what the network would not
 * take): a content Baileys generates the message of, or a message built whole (buttons: Baileys 7
 * has no builder for them). `nodes` go beside the message on every write.
 */
export type BaileysContent = { content: AnyMessageContent; quotedId?: string; nodes: BinaryNode[] } | { message: proto.IMessage; nodes: BinaryNode[] };

/** A message ready to write: generated (media encrypted and uploaded) once, encrypted anew on each write. */
export interface OutgoingMessage {
  message: proto.IMessage;
  nodes: BinaryNode[];
}

export interface OutgoingContext {
  /** The recipient's chat (the contact's LID or number). */
  jid: string;
  messageId: string;
  /** This device's own jid (Baileys' `userJid`). */
  userJid: string;
  /** The message a text quotes: our copy when we have one, else its id alone. */
  quoted: (quotedId: string) => Pick<WAMessage, 'key' | 'message'>;
}

/** `pollSecret`: the secret of this message's poll, derived from its id (the same on every build). */
export function baileysContent(content: OutgoingContent, pollSecret: () => Uint8Array): BaileysContent {
  switch (content.type) {
    case 'text':
      return { content: { text: content.text }, ...(content.quotedId === undefined ? {} : { quotedId: content.quotedId }), nodes: [] };
    case 'media':
      return { content: mediaMessageContent(content.media), nodes: [] };
    case 'location':
      return { content: locationMessageContent(content.location), nodes: [] };
    // What Baileys' sendMessage puts beside a poll it creates.
    case 'poll':
      return { content: pollMessageContent(content.poll, pollSecret()), nodes: [{ tag: 'meta', attrs: { polltype: 'creation' } }] };
    case 'buttons':
      return { message: buttonsMessageProto(content.buttons), nodes: [buttonsBizNode(unixTimestampSeconds())] };
  }
}

/**
 * The message to write, generated the way Baileys' `sendMessage` does but apart from the write:
 * a media's upload happens here, so that a send given up on during a long upload (its deadline)
 * is never written after its caller was told it failed, and a message written again on the next
 * socket is not uploaded again. No link previews: they would fetch whatever URL a text names.
 */
export async function outgoingMessage(socket: WASocket, content: BaileysContent, context: OutgoingContext): Promise<OutgoingMessage> {
  if ('message' in content) return content;
  const quoted = content.quotedId === undefined ? {} : { quoted: context.quoted(content.quotedId) as WAMessage };
  const generated = await generateWAMessage(context.jid, content.content, {
    userJid: context.userJid,
    upload: socket.waUploadToServer,
    messageId: context.messageId,
    ...quoted,
  });
  if (!generated.message) throw new Error(`Baileys generated no message for ${context.messageId}`);
  return { message: generated.message, nodes: content.nodes };
}

/**
 * The message a recipient asked for again (a retry receipt), built from our record the way its
 * first send built it: the same text, quote, location, buttons, poll (with the same secret, so
 * votes still open), and the same media bytes, uploaded again (the network's copy may be gone; the
 * recipient downloads whichever the message names). Baileys encrypts it anew and sends it under
 * the same id.
 */
export async function messageToResend(socket: WASocket, content: OutgoingContent, context: OutgoingContext & { pollSecret: () => Uint8Array }): Promise<proto.IMessage> {
  return (await outgoingMessage(socket, baileysContent(content, context.pollSecret), context)).message;
}
