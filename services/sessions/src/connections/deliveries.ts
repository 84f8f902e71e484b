import { ApiError, notSentError, queuedError } from '@switchboard/contracts';
import type { DeliverMessageCommand, DeliverMessageReply } from '@switchboard/contracts';
import { SpanKind, processMetrics, runInSpan, timeAsync } from '@switchboard/telemetry';
import type { Logger } from '@switchboard/telemetry';
import { ChatNetworkError, NotConnectedError, RecipientNotOnNetworkError } from '../chat/index.js';
import type { ChatDriver, SentMessage } from '../chat/index.js';
import { SessionNotConnected } from '../session/errors.js';
import type { SentLog, SentRecord } from '../sent-log/sent-log.js';
import type { PacedTurn, Pacer } from '../pacing/pacer.js';
import { typingMs } from '../pacing/pacing-rules.js';
import type { ActivityRecorder } from './activity.js';
import type { ConnectionManager } from './connection-manager.js';
import { networkMessageIdFor } from './network-message-id.js';
import type { MediaSource } from './media-source.js';
import type { LiveConnection } from './live-connection.js';
import type { ConnectionRegistry } from './registry.js';

/** Where a send under way stands: `queued` while it waits its turn under the session's pacing. */
interface Progress {
  queued: boolean;
  /** When messaging last asked for it (epoch ms): it asks again each time it is answered `queued`. */
  askedAt: number;
}

/**
 * A queued message nobody asked about for this many send deadlines is not sent when its turn
 * comes: messaging, answered `queued`, asks again after one deadline, so silence this long means
 * it gave up on it (recorded it failed, refunded it) and a send now would deliver a message its
 * client was told failed.
 */
const UNASKED_DEADLINES = 3;

/** One send under way here. */
interface Attempt {
  done: Promise<DeliverMessageReply>;
  progress: Progress;
}

/**
 * `sessions.send`: delivers one accepted message through the owning connection and answers once
 * the network acknowledged it. The acknowledgement is recorded in the sent log BEFORE the answer,
 * so a repeated `messageId` (messaging retrying after a timeout, or recovering after a crash of
 * either service) gets the recorded answer instead of a second send, in this process or the next.
 * A send whose acknowledgement is not on record may not have reached the network: it goes out
 * again, under the same network id. A failed attempt may be retried.
 */
export class Deliveries {
  /** Attempts under way here: a repeat arriving meanwhile shares the attempt instead of racing it. */
  private readonly inFlight = new Map<string, Attempt>();

  constructor(
    private readonly registry: ConnectionRegistry,
    private readonly manager: ConnectionManager,
    private readonly activity: ActivityRecorder,
    private readonly media: MediaSource,
    private readonly sent: SentLog,
    private readonly logger?: Logger,
    private readonly pacing?: { pacer: Pacer; answerQueuedAfterMs: number },
  ) {}

  deliver(command: DeliverMessageCommand): Promise<DeliverMessageReply> {
    // Keyed with the account and session so no other caller can share or read it.
    const key = `${command.accountId}/${command.sessionId}/${command.messageId}`;
    let attempt = this.inFlight.get(key);
    if (attempt) attempt.progress.askedAt = Date.now();
    else {
      const progress: Progress = { queued: false, askedAt: Date.now() };
      const done = this.deliverOnce(command, progress).finally(() => this.inFlight.delete(key));
      // Whoever asked may have been answered `queued` and gone: the outcome is the sent log's then.
      done.catch(() => undefined);
      this.inFlight.set(key, (attempt = { done, progress }));
    }
    return this.answer(attempt);
  }

  /**
   * The attempt's outcome; but a message still waiting its turn under pacing when the send deadline
   * is up is answered `queued` (a retryable CHAT_NETWORK_ERROR, nothing written yet) and sent when
   * its turn comes: the caller asks again with the same id and joins it. Once it left the queue, the
   * answer waits for the network as always.
   */
  private async answer(attempt: Attempt): Promise<DeliverMessageReply> {
    if (!this.pacing) return attempt.done;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(resolve, this.pacing?.answerQueuedAfterMs, 'late')));
    try {
      const first = await Promise.race([attempt.done, late]);
      if (first !== 'late') return first;
      if (attempt.progress.queued) throw queuedError();
      return await attempt.done;
    } finally {
      clearTimeout(timer);
    }
  }

  private async deliverOnce(command: DeliverMessageCommand, progress: Progress): Promise<DeliverMessageReply> {
    // Checked first: a message the network already took keeps its answer even if the session
    // dropped since, or the process that sent it died before answering.
    const recorded = await this.sent.find(command.accountId, command.sessionId, command.messageId);
    if (recorded) return replyOf(recorded);
    let connection = await this.linked(command);
    const turn = await this.turn(command, progress);
    let reply: DeliverMessageReply;
    try {
      if (this.pacing && Date.now() - progress.askedAt > UNASKED_DEADLINES * this.pacing.answerQueuedAfterMs) {
        throw notSentError('Nobody waits for this message any more (its sender gave up on it while it waited its turn); it was not sent.');
      }
      // The session may have dropped or moved while the message waited its turn.
      connection = this.registry.get(command.sessionId) === connection ? connection : await this.linked(command);
      reply = { ...(await this.send(connection.driver, command)), ...(connection.phone ? { from: connection.phone } : {}) };
    } catch (error) {
      turn?.settle(false);
      throw error;
    }
    // The next message's gap counts from this acknowledgement.
    turn?.settle(true);
    return this.recordSent(command, reply);
  }

  /** Waits for the message's turn under the session's pacing (none without a pacer). */
  private async turn(command: DeliverMessageCommand, progress: Progress): Promise<PacedTurn | undefined> {
    if (!this.pacing) return undefined;
    progress.queued = true;
    try {
      return await this.pacing.pacer.turn(command.accountId, command.sessionId, command.to);
    } finally {
      progress.queued = false;
    }
  }

  /** The session's linked connection held here, or why the message cannot go now. */
  private async linked(command: DeliverMessageCommand): Promise<LiveConnection> {
    const connection = this.registry.get(command.sessionId);
    if (!connection || connection.accountId !== command.accountId) {
      const { status } = await this.manager.visible(command);
      // Connected on record but not held here (the router waited up to the deadline for it): its
      // resume failed, or it is still moving between replicas. Nothing was written: retryable.
      if (status === 'connected') throw notSentError("The session's connection is not available right now; retry shortly.");
      throw new SessionNotConnected(status);
    }
    if (connection.phase !== 'linked') throw new SessionNotConnected('pending');
    return connection;
  }

  private async recordSent(command: DeliverMessageCommand, reply: DeliverMessageReply): Promise<DeliverMessageReply> {
    await this.sent.record({ accountId: command.accountId, sessionId: command.sessionId, ...reply }).catch((error: unknown) => {
      // The message is on the network either way; unrecorded, a redelivery would repeat it (shown once).
      this.logger?.error({ err: error, messageId: command.messageId }, 'acknowledged send not recorded in the sent log');
    });
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
}

function replyOf(record: SentRecord): DeliverMessageReply {
  return { messageId: record.messageId, networkMessageId: record.networkMessageId, sentAt: record.sentAt, ...(record.from ? { from: record.from } : {}) };
}

/** Exported for its unit test. */
export async function sendContent(driver: ChatDriver, command: DeliverMessageCommand, media: MediaSource): Promise<SentMessage> {
  const { to, content, quoted } = command;
  const options = { id: networkMessageIdFor(command.messageId) };
  // Before the send, so its acknowledgement keeps its whole deadline. "typing…" is a courtesy: a
  // chat state the network did not take fails neither the message nor its charge (nothing was
  // sent); the send itself says what the connection can do. A recipient not on the network, or a
  // connection being restored, still ends the delivery here, as not sent.
  if (command.typing) {
    await driver.showTyping(to, typingMs(typedLength(content))).catch((error: unknown) => {
      if (!(error instanceof ChatNetworkError)) throw error;
    });
  }
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
    case 'poll':
      return driver.sendPoll(to, content, options);
  }
}

/** The characters a person would type for this message. */
function typedLength(content: DeliverMessageCommand['content']): number {
  switch (content.type) {
    case 'text':
    case 'buttons':
      return content.text.length;
    case 'media':
      return content.caption?.length ?? 0;
    case 'poll':
      return content.question.length;
    case 'location':
      return 0;
  }
}

function asApiError(error: unknown): unknown {
  if (error instanceof RecipientNotOnNetworkError) return new ApiError('RECIPIENT_NOT_ON_CHAT_NETWORK');
  // The session is connected, but its socket is being restored after a drop: retryable.
  // Nothing was written, so messaging may retry or refund safely.
  if (error instanceof NotConnectedError) return notSentError('The session is reconnecting to the chat network; retry shortly.');
  if (error instanceof ChatNetworkError) return new ApiError('CHAT_NETWORK_ERROR');
  return error;
}
