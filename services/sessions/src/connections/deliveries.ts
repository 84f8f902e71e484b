import { ApiError } from '@switchboard/contracts';
import type { DeliverMessageCommand, DeliverMessageReply } from '@switchboard/contracts';
import { SpanKind, processMetrics, runInSpan, timeAsync } from '@switchboard/telemetry';
import type { Logger } from '@switchboard/telemetry';
import { ChatNetworkError, NotConnectedError, RecipientNotOnNetworkError } from '../chat/index.js';
import type { ChatDriver, SentMessage } from '../chat/index.js';
import { SessionNotConnected } from '../session/errors.js';
import { statusOf } from '../session/state.js';
import type { ActivityRecorder } from './activity.js';
import type { ConnectionManager } from './connection-manager.js';
import { networkMessageIdFor } from './network-message-id.js';
import type { MediaSource } from './media-source.js';
import type { ConnectionRegistry } from './registry.js';

/** How many recent message ids a session owner remembers to refuse sending one twice. */
const REMEMBERED_SENDS = 10_000;

/**
 * `sessions.send`: delivers one accepted message through the owning connection and answers once
 * the network acknowledged it. A repeated `messageId` (messaging retrying after a timeout) gets
 * the first attempt's outcome instead of a second send; a failed attempt may be retried.
 */
export class Deliveries {
  private readonly recent = new Map<string, Promise<DeliverMessageReply>>();

  constructor(
    private readonly registry: ConnectionRegistry,
    private readonly manager: ConnectionManager,
    private readonly activity: ActivityRecorder,
    private readonly media: MediaSource,
    private readonly logger?: Logger,
  ) {}

  async deliver(command: DeliverMessageCommand): Promise<DeliverMessageReply> {
    // Checked first: a message the network already took keeps its answer even if the session
    // dropped since. Keyed with the account and session so no other caller can read it.
    const key = `${command.accountId}/${command.sessionId}/${command.messageId}`;
    const earlier = this.recent.get(key);
    if (earlier) return earlier;
    const connection = this.registry.get(command.sessionId);
    if (!connection || connection.accountId !== command.accountId) {
      const status = statusOf(await this.manager.visible(command));
      // Connected on record but not held here: its resume failed or is still being recorded.
      if (status === 'connected') throw new ApiError('CHAT_NETWORK_ERROR', "The session's connection is not available right now; retry shortly.");
      throw new SessionNotConnected(status);
    }
    if (connection.phase !== 'linked') throw new SessionNotConnected('pending');
    const attempt = this.send(connection.driver, command);
    this.remember(key, attempt);
    const reply = await attempt;
    this.activity.touch(command.sessionId, command.accountId, 'message_sent');
    return reply;
  }

  private async send(driver: ChatDriver, command: DeliverMessageCommand): Promise<DeliverMessageReply> {
    try {
      const sent = await this.traced(command, () => sendContent(driver, command, this.media));
      return { messageId: command.messageId, networkMessageId: sent.id, sentAt: sent.timestamp.toISOString() };
    } catch (error) {
      throw asApiError(error);
    }
  }

  /**
   * The driver's send as a CLIENT span of the request's trace (issue 7) and its time until the
   * network acknowledged it in `switchboard_send_ack_duration_seconds`.
   */
  private async traced(command: DeliverMessageCommand, send: () => Promise<SentMessage>): Promise<SentMessage> {
    const type = command.content.type;
    const attributes = { 'chat.message.type': type, 'chat.session.id': command.sessionId, 'switchboard.message.id': command.messageId };
    return runInSpan(`chat send ${type}`, { kind: SpanKind.CLIENT, attributes }, async () => {
      const sent = await timeAsync(processMetrics().sendAckDuration, { type }, send);
      this.logger?.debug({ messageId: command.messageId, sessionId: command.sessionId, type }, 'message acknowledged by the chat network');
      return sent;
    });
  }

  private remember(key: string, attempt: Promise<DeliverMessageReply>): void {
    this.recent.set(key, attempt);
    // A failure is forgotten so that the caller's retry really tries again.
    attempt.catch(() => this.recent.get(key) === attempt && this.recent.delete(key));
    if (this.recent.size > REMEMBERED_SENDS) {
      const oldest = this.recent.keys().next().value;
      if (oldest !== undefined) this.recent.delete(oldest);
    }
  }
}

async function sendContent(driver: ChatDriver, command: DeliverMessageCommand, media: MediaSource): Promise<SentMessage> {
  const { to, content, quoted } = command;
  const options = { id: networkMessageIdFor(command.messageId) };
  switch (content.type) {
    case 'text':
      return driver.sendText(to, content.text, quoted ? { ...options, quotedId: quoted.networkMessageId } : options);
    case 'media': {
      const { mediaType, mimetype, filename, sha256 } = content.media;
      const bytes = await media.bytes(command.media, sha256);
      return driver.sendMedia(to, {
        kind: mediaType,
        bytes,
        mimetype,
        ...(content.caption === undefined ? {} : { caption: content.caption }),
        ...(filename === undefined ? {} : { filename }),
      }, options);
    }
    case 'location':
      return driver.sendLocation(to, content, options);
    case 'buttons':
      return driver.sendButtons(to, content, options);
  }
}

function asApiError(error: unknown): unknown {
  if (error instanceof RecipientNotOnNetworkError) return new ApiError('RECIPIENT_NOT_ON_CHAT_NETWORK');
  // The session is connected, but its socket is being restored after a drop: retryable.
  // `reachedNetwork: false`: nothing was written, so messaging may retry or refund safely.
  if (error instanceof NotConnectedError) {
    return new ApiError('CHAT_NETWORK_ERROR', 'The session is reconnecting to the chat network; retry shortly.', { reachedNetwork: false });
  }
  if (error instanceof ChatNetworkError) return new ApiError('CHAT_NETWORK_ERROR');
  return error;
}
