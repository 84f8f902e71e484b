import { MessagingSubjects } from '@switchboard/contracts';
import type { ForwardedContent, RecordInboundCommand } from '@switchboard/contracts';
import { RemoteError } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { SpanKind, runInRootSpan, withLogFields } from '@switchboard/telemetry';
import type { Logger } from '@switchboard/telemetry';
import type { InboundContent, InboundEvent } from '../chat/index.js';
import type { MediaSource } from './media-source.js';

const INBOUND_TIMEOUT_MS = 5_000;
// Also while messaging has no responder: a killed messaging process is back within seconds, and
// what the network told us only once must not be dropped meanwhile (waits add up to about 40 s).
const ATTEMPTS = 12;
const MAX_WAIT_MS = 5_000;

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
      return { type: 'poll_vote', pollNetworkId: content.pollId, options: content.options };
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

/**
 * Forwards received messages to the messaging service (`sb.v1.messaging.recordInbound`), as
 * receipts are forwarded: a request, retried with backoff for about 40 s while messaging is slow
 * or away (also with no responder: it may be restarting); then the message is logged and dropped
 * rather than blocking the session.
 */
export class InboundForwarder {
  constructor(
    private readonly bus: Bus,
    private readonly media: Pick<MediaSource, 'put'>,
    private readonly logger: Logger,
  ) {}

  forward(accountId: string, sessionId: string, to: string, inbound: InboundEvent): Promise<void> {
    const attributes = { 'chat.inbound.type': inbound.content.type, 'chat.session.id': sessionId };
    return withLogFields({ account_id: accountId }, () =>
      runInRootSpan(`chat inbound ${inbound.content.type}`, { kind: SpanKind.CONSUMER, attributes }, async () => {
        const content = await forwardedContent(inbound.content, this.media);
        await this.send(recordInboundCommand(accountId, sessionId, to, inbound, content));
      }),
    );
  }

  private async send(command: RecordInboundCommand): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.bus.request(MessagingSubjects.recordInbound.subject, command, { timeoutMs: INBOUND_TIMEOUT_MS });
        return;
      } catch (error) {
        if (error instanceof RemoteError || attempt >= ATTEMPTS) {
          this.logger.warn({ err: error, sessionId: command.sessionId, networkMessageId: command.networkMessageId }, 'received message not recorded by messaging');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(200 * 2 ** attempt, MAX_WAIT_MS)));
      }
    }
  }
}
