import { MessagingSubjects } from '@switchboard/contracts';
import type { DeliverMessageCommand } from '@switchboard/contracts';
import { callService } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import type { OutgoingContent, SentContentRecord } from '../chat/index.js';
import type { MediaSource } from './media-source.js';

/** Baileys waits for the answer while handling the receipt: a resend is not worth a long stall. */
const REQUEST_TIMEOUT_MS = 5_000;

/**
 * What a session sent, by network id, for the resends recipients ask for (retry receipts). The
 * record is messaging's: the message streams keep every accepted message's content (sealed per
 * account), so it outlives any restart of this service, and an account's erased contents are
 * gone from it too. Media bytes come from the blob store, as for the first send.
 */
export class SentContent {
  constructor(
    private readonly bus: Bus,
    private readonly media: Pick<MediaSource, 'bytes'>,
  ) {}

  async find(accountId: string, sessionId: string, networkMessageId: string): Promise<SentContentRecord | undefined> {
    const request = { accountId, sessionId, networkMessageId };
    const { message } = await callService(this.bus, MessagingSubjects.sentContent, request, { timeoutMs: REQUEST_TIMEOUT_MS, accountId });
    return message ? { to: message.to, content: await outgoingContent(message, this.media) } : undefined;
  }
}

async function outgoingContent(command: DeliverMessageCommand, media: Pick<MediaSource, 'bytes'>): Promise<OutgoingContent> {
  const { content, quoted } = command;
  switch (content.type) {
    case 'text':
      return { type: 'text', text: content.text, ...(quoted ? { quotedId: quoted.networkMessageId } : {}) };
    case 'media': {
      const { mediaType, mimetype, filename, sha256 } = content.media;
      const bytes = await media.bytes(command.media, sha256);
      const caption = content.caption === undefined ? {} : { caption: content.caption };
      return { type: 'media', media: { kind: mediaType, bytes, mimetype, ...caption, ...(filename === undefined ? {} : { filename }) } };
    }
    case 'location':
      return { type: 'location', location: content };
    case 'buttons':
      return { type: 'buttons', buttons: content };
    case 'poll':
      return { type: 'poll', poll: content };
  }
}
