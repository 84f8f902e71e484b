import type { ForwardedContent, RecordInboundCommand } from '@switchboard/contracts';
import type { InboundContent, InboundEvent } from '../chat/index.js';
import type { MediaSource } from './media-source.js';

/** A received message's content as the messaging service records it; media goes to the blob store first. */
export async function forwardedContent(content: InboundContent, media: Pick<MediaSource, 'put'>): Promise<ForwardedContent> {
  switch (content.type) {
    case 'media': {
      const { kind, mimetype, bytes, caption, filename } = content.media;
      const sha256 = await media.put(bytes);
      return { type: 'media', media: { mediaType: kind, mimetype, size: bytes.byteLength, sha256, ...(caption ? { caption } : {}), ...(filename ? { filename } : {}) } };
    }
    case 'reaction':
      return { type: 'reaction', targetNetworkId: content.targetId, emoji: content.emoji };
    case 'poll_vote':
      // Named by messaging, which has the poll's options.
      return { type: 'poll_vote', pollNetworkId: content.pollId, options: [], selectedOptionHashes: content.selectedOptionHashes };
    default:
      return content;
  }
}

/** The command for one received message of a session linked as `to`. */
export function recordInboundCommand(accountId: string, sessionId: string, to: string, inbound: InboundEvent, content: ForwardedContent): RecordInboundCommand {
  return {
    accountId, sessionId, to, content,
    networkMessageId: inbound.id,
    from: inbound.from,
    ...(inbound.fromLid ? { fromLid: inbound.fromLid } : {}),
    sentAt: inbound.sentAt.toISOString(),
    quotedNetworkId: inbound.quotedId ?? null,
  };
}
