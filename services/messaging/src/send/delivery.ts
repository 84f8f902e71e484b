import { ApiError, QuotaSubjects, SessionsSubjects, eventRef, isQueued, messageStream, reachedNetwork } from '@switchboard/contracts';
import type { DeliverMessageCommand, MessageContent, QuotedRef } from '@switchboard/contracts';
import type { Bus } from '@switchboard/bus';
import type { Logger } from '@switchboard/telemetry';
import { sleep } from '../application/clock.js';
import type { MessageStore } from '../application/message-store.js';
import { callService, ContractViolationError, ServiceCallError } from '@switchboard/bus';
import type { CallOptions } from '@switchboard/bus';
import type { AcceptedState, Message } from '../message/state.js';
import type { MessageStatusQueries } from '../projections/message-status/queries.js';
import { resolveQuoted } from './quoted.js';

/** How a delivery ended: on the network, or failed with the error the client sees. */
export type DeliveryOutcome = { status: 'sent' } | { status: 'failed'; error: ApiError };

export interface DeliveryOptions {
  bus: Bus;
  messages: MessageStore;
  statuses: MessageStatusQueries;
  logger: Logger;
  /** SWITCHBOARD_SEND_DEADLINE_MS: sessions waits this long for the network's acknowledgement. */
  sendDeadlineMs: number;
  /** Pauses between attempts when sessions could not be reached or did not answer. */
  retryDelaysMs?: readonly number[];
  onOutcome?: (messageId: string, outcome: DeliveryOutcome) => void;
}

/**
 * Takes an accepted message to the network through `sessions.send` and records the outcome in its
 * stream. Always with the message's own id, so a retry, a replay or recovery after a crash can
 * never make sessions send it twice. Deliveries of one message in this process share one attempt.
 */
export class Delivery {
  private readonly inFlight = new Map<string, Promise<DeliveryOutcome>>();

  constructor(private readonly options: DeliveryOptions) {}

  isInFlight(messageId: string): boolean {
    return this.inFlight.has(messageId);
  }

  /**
   * Waits (up to `timeoutMs`) for deliveries under way, so a graceful stop records their outcome.
   * Whatever is still running after that stays `pending` in its stream for recovery to finish.
   */
  async drain(timeoutMs: number): Promise<void> {
    const running = [...this.inFlight.values()].map((p) => p.catch(() => undefined));
    if (running.length === 0) return;
    await Promise.race([Promise.all(running), sleep(timeoutMs)]);
  }

  /**
   * Delivers (or finds the outcome of) an accepted message; never throws for a failed send.
   * `mediaBytes`: the media at hand (a fresh send); small files then travel inline, saving sessions
   * a blob store read. Without them (recovery, replays) sessions reads the blob by sha256.
   * `known`: the message as the caller just decided or read it, so it is not read again (a later
   * writer is still caught: each outcome is appended with the revision it was decided on).
   */
  deliver(messageId: string, correlationId?: string, mediaBytes?: Uint8Array, known?: Message): Promise<DeliveryOutcome> {
    const running = this.inFlight.get(messageId);
    if (running) return running;
    const attempt = this.run(messageId, correlationId, mediaBytes, known).finally(() => this.inFlight.delete(messageId));
    this.inFlight.set(messageId, attempt);
    return attempt;
  }

  /** Gives back the daily unit of a failed message that never reached the network (once). */
  async refund(state: AcceptedState, correlationId?: string, failedRef = acceptedRef(state)): Promise<void> {
    if (state.status !== 'failed' || !state.refundDue) return;
    const { bus } = this.options;
    const request = { accountId: state.accountId, messageId: state.messageId, day: state.usageDay };
    try {
      await callService(bus, QuotaSubjects.refundDaily, request, { timeoutMs: 5_000, ...callOptionsFor(state, correlationId), causationId: failedRef });
    } catch (error) {
      // The stream still says a refund is due; recovery tries again.
      this.options.logger.warn({ messageId: state.messageId, err: errorCode(error) }, 'refund of a failed message postponed');
      return;
    }
    await this.options.messages.execute(state.messageId, state.accountId, { type: 'RecordRefund' }, correlationId, failedRef);
  }

  private async run(messageId: string, correlationId?: string, mediaBytes?: Uint8Array, known?: Message): Promise<DeliveryOutcome> {
    const state = known ?? (await this.options.messages.load(messageId));
    if (state.status === 'absent') throw new ApiError('MESSAGE_NOT_FOUND');
    if (state.status !== 'pending') {
      await this.refund(state, correlationId);
      return outcomeOf(state);
    }
    // Erased before it reached the network (crypto-shredding): there is nothing left to send.
    if (state.content.type === 'erased') return this.fail(state, new ApiError('CONTENT_ERASED'), true, correlationId);
    let quoted: QuotedRef | null = null;
    try {
      quoted = state.quotedMessageId === null ? null : await resolveQuoted(this.options.statuses, this.options.messages, { ...state, quotedMessageId: state.quotedMessageId });
    } catch (error) {
      if (error instanceof ApiError) return this.fail(state, error, true, correlationId);
      throw error;
    }
    const outcome = await this.attempts(state, deliverCommand({ ...state, content: state.content }, quoted, mediaBytes), correlationId);
    this.options.onOutcome?.(messageId, outcome);
    return outcome;
  }

  private async attempts(state: AcceptedState, command: DeliverMessageCommand, correlationId?: string): Promise<DeliveryOutcome> {
    const delays = this.options.retryDelaysMs ?? [500, 2_000];
    let mayHaveSent = false;
    // The last failure, once there is one (an error is not built for the sends that succeed).
    let last: ApiError | undefined;
    for (let attempt = 0; ; ) {
      let failure: ServiceCallError;
      try {
        const reply = await callService(this.options.bus, SessionsSubjects.send, command, {
          // Sessions answers within the deadline (acknowledged or not); the margin covers the hop.
          timeoutMs: this.options.sendDeadlineMs + 5_000,
          ...callOptionsFor(state, correlationId),
        });
        await this.options.messages.execute(state.messageId, state.accountId, { type: 'RecordSent', networkMessageId: reply.networkMessageId, from: reply.from }, correlationId, acceptedRef(state));
        return { status: 'sent' };
      } catch (error) {
        if (error instanceof ServiceCallError) failure = error;
        // A bug in sessions' answer (or its INTERNAL_ERROR): it may have sent; retry with the same id.
        else if (error instanceof ContractViolationError || (error instanceof Error && error.name === 'RemoteError')) failure = new ServiceCallError('unknown', 'INTERNAL_ERROR');
        else throw error;
      }
      // Still waiting its turn under the session's send pacing: sessions sends it when it comes; ask
      // again (joining that send), without using up a retry. The client had its 202 at the deadline.
      if (failure.outcome === 'refused' && isQueued(failure)) continue;
      if (failure.outcome === 'refused' && !isTransient(failure)) return this.fail(state, failure, isRefundable(failure), correlationId);
      mayHaveSent ||= failure.outcome === 'unknown';
      last = failure;
      const delay = delays[attempt++];
      if (delay === undefined) break;
      this.options.logger.warn({ messageId: state.messageId, code: failure.code, attempt }, 'delivery attempt failed; retrying with the same message id');
      await sleep(delay);
    }
    // It may have reached the network (502, unit kept), or certainly did not (refunded).
    if (mayHaveSent) return this.fail(state, new ApiError('CHAT_NETWORK_ERROR'), false, correlationId);
    return this.fail(state, last?.code === 'CHAT_NETWORK_ERROR' ? last : new ApiError('SERVICE_UNAVAILABLE'), true, correlationId);
  }

  private async fail(state: AcceptedState, error: ApiError, refundable: boolean, correlationId?: string): Promise<DeliveryOutcome> {
    const { messages } = this.options;
    const failed = await messages.execute(state.messageId, state.accountId, { type: 'FailMessage', code: error.code, message: error.message, refundable }, correlationId, acceptedRef(state));
    const now = failed.state;
    if (now.status === 'failed') {
      await this.refund(now, correlationId, failed.revision === undefined ? undefined : eventRef(messageStream(now.messageId), failed.revision));
      return { status: 'failed', error: new ApiError(now.failure.code, now.failure.message, error.details) };
    }
    // Someone else recorded the acknowledgement first (a concurrent redelivery): that wins.
    return now.status === 'absent' ? { status: 'failed', error } : outcomeOf(now);
  }
}

/** Sessions could not reach the network (reconnecting, connection moving): try again shortly. */
function isTransient(error: ApiError): boolean {
  return error.code === 'CHAT_NETWORK_ERROR' && reachedNetwork(error) === false;
}

/** A unit is given back only when the network certainly never got the message. */
function isRefundable(error: ApiError): boolean {
  return reachedNetwork(error) === false;
}

export function outcomeOf(state: AcceptedState): DeliveryOutcome {
  if (state.status === 'failed') return { status: 'failed', error: new ApiError(state.failure.code, state.failure.message) };
  if (state.status === 'pending') return { status: 'failed', error: new ApiError('INTERNAL_ERROR') };
  return { status: 'sent' };
}

/**
 * Inline media stays well under NATS's default 1 MiB message limit once base64 (4/3) and the rest
 * of the command are added.
 */
export const INLINE_MEDIA_MAX_BYTES = 512 * 1024;

export function deliverCommand(state: AcceptedState & { content: MessageContent }, quoted: QuotedRef | null, bytes?: Uint8Array): DeliverMessageCommand {
  const base = { accountId: state.accountId, sessionId: state.sessionId, messageId: state.messageId, to: state.to, content: state.content, quoted, ...(state.typing ? { typing: true as const } : {}) };
  if (state.content.type !== 'media') return base;
  if (bytes !== undefined && bytes.length <= INLINE_MEDIA_MAX_BYTES) return { ...base, media: { kind: 'inline', base64: Buffer.from(bytes).toString('base64') } };
  // The bytes wait in the blob store under their sha256 (put before the message was accepted).
  return { ...base, media: { kind: 'blob', sha256: state.content.media.sha256 } };
}

/** Delivering a message, and what follows from it, is caused by its acceptance (revision 0 of its stream). */
function acceptedRef(state: AcceptedState): string {
  return eventRef(messageStream(state.messageId), 0);
}

function callOptionsFor(state: AcceptedState, correlationId?: string): CallOptions {
  return { accountId: state.accountId, causationId: acceptedRef(state), ...(correlationId ? { correlationId } : {}) };
}

function errorCode(error: unknown): string {
  return error instanceof ServiceCallError ? error.code : error instanceof Error ? error.name : 'unknown';
}
