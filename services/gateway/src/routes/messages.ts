import { ApiError, HTTP_HEADERS, MEDIA_FETCH_TIMEOUT_MS, MESSAGE_ENDPOINTS, MessagingSubjects, success } from '@switchboard/contracts';
import type { DailyUsage, MessageType, ReplyOf, RequestInput, SendMediaBody } from '@switchboard/contracts';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { idempotencyOf } from '../http/idempotency.js';
import { withStoredMedia } from '../media/inline-media.js';
import { defineRoute } from './kit.js';
import type { RouteContext } from './kit.js';

/**
 * The bus hop to messaging and back. Messaging answers 202 `pending` at SWITCHBOARD_SEND_DEADLINE_MS
 * after the content is ready, so past deadline + hop (+ the media fetch timeout for a URL) it is
 * gone, and the client gets 504 then rather than waiting any longer.
 */
const HOP_MARGIN_MS = 2_000;

type SendEndpoint = (typeof MESSAGE_ENDPOINTS)['sendText' | 'sendMedia' | 'sendLocation' | 'sendButtons' | 'sendPoll'];
type SendSubject = (typeof MessagingSubjects)['sendText' | 'sendMedia' | 'sendLocation' | 'sendButtons' | 'sendPoll'];

/**
 * The message endpoints: POST /v1/messages/{text,media,location,buttons,poll} (201 `sent`, 202
 * `pending`, RateLimit-* headers, Idempotency-Key) and GET /v1/messages/{messageId}, each also
 * under /api/v1. Messaging does the work; this is HTTP in and out.
 */
export function registerMessageRoutes(app: FastifyInstance): void {
  defineRoute(app, MESSAGE_ENDPOINTS.sendText, (ctx) => sendMessage(ctx, MessagingSubjects.sendText, 'text'));
  defineRoute(app, MESSAGE_ENDPOINTS.sendMedia, (ctx) => sendMessage(ctx, MessagingSubjects.sendMedia, 'media'));
  defineRoute(app, MESSAGE_ENDPOINTS.sendLocation, (ctx) => sendMessage(ctx, MessagingSubjects.sendLocation, 'location'));
  defineRoute(app, MESSAGE_ENDPOINTS.sendButtons, (ctx) => sendMessage(ctx, MessagingSubjects.sendButtons, 'buttons'));
  defineRoute(app, MESSAGE_ENDPOINTS.sendPoll, (ctx) => sendMessage(ctx, MessagingSubjects.sendPoll, 'poll'));
  defineRoute(app, MESSAGE_ENDPOINTS.get, async (ctx) =>
    success(await ctx.call(MessagingSubjects.get, { accountId: ctx.accountId, messageId: ctx.params.messageId })),
  );
  defineRoute(app, MESSAGE_ENDPOINTS.list, async (ctx) => success(await ctx.call(MessagingSubjects.history, { accountId: ctx.accountId, ...ctx.query })));
  defineRoute(app, MESSAGE_ENDPOINTS.media, (ctx) => mediaBytes(ctx));
}

/**
 * GET /v1/messages/{id}/media: messaging says which blob holds the message's media (and checks the
 * account); the bytes come straight from the media blob store, never over the bus.
 */
async function mediaBytes(ctx: RouteContext<(typeof MESSAGE_ENDPOINTS)['media']>): Promise<Uint8Array> {
  const ref = await ctx.call(MessagingSubjects.media, { accountId: ctx.accountId, messageId: ctx.params.messageId });
  const bytes = await ctx.request.server.gateway.blobs.get(ref.sha256);
  // Blobs are kept 24 h after they were written (libs/blob-store): older media is gone.
  if (bytes === null) throw new ApiError('MEDIA_NOT_FOUND');
  ctx.reply.header('content-type', ref.mimetype);
  return bytes;
}

async function sendMessage(ctx: RouteContext<SendEndpoint>, subject: SendSubject, kind: MessageType) {
  const idempotency = idempotencyOf(ctx.request, ctx.body, kind);
  const accountId = ctx.accountId;
  // Last of the gateway's own checks, so a refused request stores nothing. The request hash above
  // covers the client's body, base64 included; messaging gets the stored media's reference.
  const body = kind === 'media' ? await withStoredMedia(ctx.body as SendMediaBody, ctx.request.server.gateway.blobs) : ctx.body;
  const request = { accountId, body, ...(idempotency ? { idempotency } : {}) } as RequestInput<SendSubject>;
  let reply: ReplyOf<SendSubject> & { mediaType?: string };
  try {
    reply = await ctx.call(subject, request as never, { timeoutMs: sendWaitMs(ctx.config.sendDeadlineMs, ctx.body) });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'DAILY_MESSAGE_LIMIT_REACHED') setLimitReached(ctx.reply, error);
    throw error;
  }
  if (reply.usage) setRateLimit(ctx.reply, reply.usage);
  if (reply.replayed) ctx.reply.header(HTTP_HEADERS.idempotentReplayed, 'true');
  if (reply.status === 'pending') ctx.reply.code(202);
  const { messageId, status, timestamp, mediaType } = reply;
  return success({ messageId, status, timestamp, ...(mediaType ? { mediaType } : {}) }) as never;
}

/** How long a send may take before 504: the send deadline, a media URL's fetch, the hop. */
export function sendWaitMs(sendDeadlineMs: number, body: object): number {
  // Messaging starts the deadline once the content is ready: a media URL is fetched first, and
  // inline media (up to 16 MB) is read back from the blob store and sniffed, which on a busy host
  // can take seconds too. Both get the media fetch allowance.
  const hasMedia = 'media' in body && typeof body.media === 'string';
  return sendDeadlineMs + (hasMedia ? MEDIA_FETCH_TIMEOUT_MS : 0) + HOP_MARGIN_MS;
}

/**
 * What RateLimit-Limit and -Remaining say on unlimited plans (enterprise): the headers are on
 * every send, so clients need no special case, and the figure is one no real plan reaches.
 */
export const UNLIMITED_RATE_LIMIT = 2_147_483_647;

/**
 * RateLimit-Limit / -Remaining / -Reset (seconds to 00:00 UTC) from the daily usage after this
 * send.
 */
function setRateLimit(reply: FastifyReply, usage: DailyUsage): void {
  reply.header(HTTP_HEADERS.rateLimitLimit, String(usage.limit ?? UNLIMITED_RATE_LIMIT));
  reply.header(HTTP_HEADERS.rateLimitRemaining, String(usage.remaining ?? UNLIMITED_RATE_LIMIT));
  reply.header(HTTP_HEADERS.rateLimitReset, String(secondsUntil(usage.resetsAt)));
}

/** On 429 the figures come in the error's details; Retry-After is set by the error renderer. */
function setLimitReached(reply: FastifyReply, error: ApiError): void {
  const details = error.details as { limit?: unknown; resetsAt?: unknown } | undefined;
  if (typeof details?.limit !== 'number' || typeof details.resetsAt !== 'string') return;
  reply.header(HTTP_HEADERS.rateLimitLimit, String(details.limit));
  reply.header(HTTP_HEADERS.rateLimitRemaining, '0');
  reply.header(HTTP_HEADERS.rateLimitReset, String(secondsUntil(details.resetsAt)));
}

function secondsUntil(iso: string): number {
  return Math.max(0, Math.ceil((Date.parse(iso) - Date.now()) / 1000));
}
