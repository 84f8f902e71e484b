import { ApiError, QuotaSubjects, utcDayOf } from '@switchboard/contracts';
import type { DailyUsage, IdempotencyEvent, IdempotencyRef, MediaType, SendMessageReply } from '@switchboard/contracts';
import type { BlobStore } from '@switchboard/blob-store';
import type { Bus } from '@switchboard/bus';
import { callService } from '@switchboard/bus';
import type { IdempotencyKeys } from '@switchboard/service-kit';
import { ulid } from '@switchboard/service-kit';
import type { Logger } from '@switchboard/telemetry';
import type { Clock } from '../application/clock.js';
import { sleep } from '../application/clock.js';
import type { MessageStore } from '../application/message-store.js';
import type { MediaPolicy } from '../media/resolve-media.js';
import type { AcceptedState } from '../message/state.js';
import type { MessageStatusQueries } from '../projections/message-status/queries.js';
import type { Delivery } from './delivery.js';
import { holderLetsGo } from '../idempotency/message-keys.js';
import { prepareContent, quotedIdOf } from './prepare.js';
import type { SendRequest } from './prepare.js';
import { resolveQuoted } from './quoted.js';

export interface SendPipelineOptions {
  bus: Bus;
  clock: Clock;
  messages: MessageStore;
  statuses: MessageStatusQueries;
  delivery: Delivery;
  idempotency: IdempotencyKeys<IdempotencyEvent>;
  blobs: BlobStore;
  media: MediaPolicy;
  logger: Logger;
  sendDeadlineMs: number;
}

/** Who asks and how: the account and the optional Idempotency-Key (hashed by the gateway). */
export interface SendCall {
  accountId: string;
  idempotency?: IdempotencyRef | undefined;
  correlationId?: string | undefined;
}

interface AnswerOptions {
  correlationId?: string | undefined;
  mediaBytes?: Uint8Array | undefined;
  replayed?: boolean;
  /** When the client gets `pending` if the network has not acknowledged by then (epoch ms). */
  answerBy: number;
}

/** `SendMessageReply` plus `mediaType` on media sends. */
export type SendReply = SendMessageReply & { mediaType?: MediaType };

/**
 * The send path of ARCHITECTURE.md: checks that cost nothing (quoted message, media) → one daily
 * unit reserved in quota, keyed by the message id → MessageAccepted → sessions.send →
 * MessageSent. Answers `sent` once the network acknowledged, or `pending` past the send deadline
 * while the delivery finishes in the background, recorded in the message's stream either way.
 */
export class SendPipeline {
  constructor(private readonly o: SendPipelineOptions) {}

  async send(request: SendRequest, call: SendCall): Promise<SendReply> {
    const ref = call.idempotency;
    if (ref === undefined) return this.sendNew(request, call, `msg_${ulid()}`);
    const claim = await this.o.idempotency.claim(call.accountId, ref, `msg_${ulid()}`, call.correlationId);
    if (claim.kind === 'replay') return this.replay(request, call, ref, claim.resourceId);
    try {
      return await this.sendNew(request, call, claim.resourceId);
    } catch (error) {
      // Failed before acceptance: nothing sent, no unit kept. The key is free for a retry. (One that
      // failed after acceptance but before the network lets its key go when the key is next claimed.)
      if ((await this.o.messages.load(claim.resourceId)).status === 'absent') {
        await this.o.idempotency.release(call.accountId, ref.keyHash, claim.resourceId, error instanceof ApiError ? error.code : 'INTERNAL_ERROR', call.correlationId);
      }
      throw error;
    }
  }

  /**
   * The send deadline runs from the moment the content is ready (a media URL may take its own
   * fetch timeout first): quota, acceptance and the network's acknowledgement all fit in it, so
   * the gateway can bound its wait by the documented deadlines.
   */
  private async sendNew(request: SendRequest, call: SendCall, messageId: string): Promise<SendReply> {
    const { accountId, correlationId } = call;
    const { sessionId, to } = request.body;
    const quotedMessageId = quotedIdOf(request);
    if (quotedMessageId !== null) await resolveQuoted(this.o.statuses, this.o.messages, { accountId, sessionId, quotedMessageId });
    const { content, mediaBytes } = await prepareContent(request, this.o.media, this.o.blobs);
    const answerBy = Date.now() + this.o.sendDeadlineMs;
    const usage = await this.reserve(accountId, messageId, correlationId);
    const accepted = await this.o.messages.execute(messageId, accountId, {
      type: 'AcceptMessage', messageId, accountId, sessionId, to, content, quotedMessageId, typing: request.body.typing === true,
      idempotencyKeyHash: call.idempotency?.keyHash ?? null, usageDay: usage.day,
    }, correlationId);
    return this.answer(accepted.state as AcceptedState, usage, { correlationId, mediaBytes, answerBy });
  }

  /** Waits for the delivery up to the send deadline; past it the client gets `pending`. */
  private async answer(state: AcceptedState, usage: DailyUsage | undefined, how: AnswerOptions): Promise<SendReply> {
    const { correlationId, mediaBytes, replayed = false, answerBy } = how;
    const delivery = this.o.delivery.deliver(state.messageId, correlationId, mediaBytes, state);
    // Past the deadline nobody awaits it: an unexpected error is logged, and recovery retries.
    delivery.catch((error: unknown) => this.o.logger.error({ messageId: state.messageId, err: error }, 'delivery stopped unexpectedly'));
    const outcome = await withinDeadline(delivery, answerBy - Date.now());
    if (outcome !== null && outcome.status === 'failed') throw withMessageId(outcome.error, state.messageId);
    const mediaType = state.content.type === 'media' ? { mediaType: state.content.media.mediaType } : {};
    return {
      messageId: state.messageId,
      status: outcome === null ? 'pending' : 'sent',
      timestamp: state.acceptedAt,
      ...mediaType,
      ...(usage ? { usage } : {}),
      ...(replayed ? { replayed } : {}),
    };
  }

  private async reserve(accountId: string, messageId: string, correlationId?: string): Promise<DailyUsage> {
    return callService(this.o.bus, QuotaSubjects.reserveDaily, { accountId, messageId }, { timeoutMs: 5_000, accountId, ...(correlationId ? { correlationId } : {}) });
  }

  /**
   * A second request with a key already held by the same request: the first one's message, never
   * a second send. It waits for that message like the first request did; a first request that
   * crashed before acceptance is finished here with the same message id (every step is keyed by it).
   */
  private async replay(request: SendRequest, call: SendCall, ref: IdempotencyRef, messageId: string): Promise<SendReply> {
    const answerBy = Date.now() + this.o.sendDeadlineMs;
    const state = await this.waitAccepted(messageId, answerBy);
    if (state === null) {
      if (!(await this.o.idempotency.holds(call.accountId, ref.keyHash, messageId))) return this.send(request, call);
      return this.sendNew(request, call, messageId);
    }
    if (state.accountId !== call.accountId) throw new ApiError('IDEMPOTENCY_KEY_REUSED');
    // It failed before the network since the claim was read: the key serves this request.
    if (holderLetsGo(state)) return this.send(request, call);
    // Usage figures for the headers: re-reserving the same message id counts nothing new, but only
    // on the day it was counted (another day's counter would take a fresh unit).
    const usage = state.status !== 'failed' && state.usageDay === utcDayOf(this.o.clock.now())
      ? await this.reserve(call.accountId, messageId, call.correlationId).catch(() => undefined)
      : undefined;
    return this.answer(state, usage, { correlationId: call.correlationId, replayed: true, answerBy });
  }

  private async waitAccepted(messageId: string, giveUpAt: number): Promise<AcceptedState | null> {
    for (;;) {
      const state = await this.o.messages.load(messageId);
      if (state.status !== 'absent') return state;
      if (Date.now() >= giveUpAt) return null;
      await sleep(50);
    }
  }
}

/**
 * `work`'s result, or null once `ms` passed. The timer is cleared with the answer: left running,
 * every send would keep a timer and its promise chain alive for the whole deadline (10 s).
 */
async function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<null>((resolve) => (timer = setTimeout(resolve, Math.max(0, ms), null)));
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A send that failed after its message got an id says which (`details.messageId`): its status and
 * history stay readable under it, and a retry with the same Idempotency-Key finds it.
 */
function withMessageId(error: ApiError, messageId: string): ApiError {
  const details = error.details;
  if (Array.isArray(details)) return error;
  return new ApiError(error.code, error.message, { ...(details ?? {}), messageId });
}
