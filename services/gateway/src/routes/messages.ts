import { createHash } from 'node:crypto';
import {
  ApiError,
  HTTP_HEADERS,
  IdempotencyKey,
  MESSAGE_ENDPOINTS,
  MessagingSubjects,
  idempotencyHashInput,
  success,
} from '@switchboard/contracts';
import type { DailyUsage, MessageType, ReplyOf, RequestInput } from '@switchboard/contracts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { defineRoute } from './kit.js';
import type { RouteContext } from './kit.js';

/**
 * A send may fetch media (15 s at most) before it waits up to SWITCHBOARD_SEND_DEADLINE_MS for
 * the network's acknowledgement; the bus deadline covers both with a margin, so a slow send ends
 * as 202 `pending` from messaging rather than a 504 here.
 */
const SEND_MARGIN_MS = 30_000;

type SendEndpoint = (typeof MESSAGE_ENDPOINTS)['sendText' | 'sendMedia' | 'sendLocation' | 'sendButtons'];
type SendSubject = (typeof MessagingSubjects)['sendText' | 'sendMedia' | 'sendLocation' | 'sendButtons'];

/**
 * The message endpoints: POST /v1/messages/{text,media,location,buttons} (201 `sent`, 202
 * `pending`, RateLimit-* headers, Idempotency-Key) and GET /v1/messages/{messageId}, each also
 * under /api/v1. Messaging does the work; this is HTTP in and out.
 */
export function registerMessageRoutes(app: FastifyInstance): void {
  defineRoute(app, MESSAGE_ENDPOINTS.sendText, (ctx) => sendMessage(ctx, MessagingSubjects.sendText, 'text'));
  defineRoute(app, MESSAGE_ENDPOINTS.sendMedia, (ctx) => sendMessage(ctx, MessagingSubjects.sendMedia, 'media'));
  defineRoute(app, MESSAGE_ENDPOINTS.sendLocation, (ctx) => sendMessage(ctx, MessagingSubjects.sendLocation, 'location'));
  defineRoute(app, MESSAGE_ENDPOINTS.sendButtons, (ctx) => sendMessage(ctx, MessagingSubjects.sendButtons, 'buttons'));
  defineRoute(app, MESSAGE_ENDPOINTS.get, async (ctx) =>
    success(await ctx.call(MessagingSubjects.get, { accountId: ctx.accountId, messageId: ctx.params.messageId })),
  );
}

async function sendMessage(ctx: RouteContext<SendEndpoint>, subject: SendSubject, kind: MessageType) {
  const idempotencyKey = idempotencyKeyOf(ctx.request);
  // The hash only matters to a key's later requests: without a key there is nothing to compare.
  const requestHash = idempotencyKey === null ? {} : { requestHash: createHash('sha256').update(idempotencyHashInput(kind, ctx.body), 'utf8').digest('hex') };
  const request = { accountId: ctx.accountId, idempotencyKey, ...requestHash, body: ctx.body } as RequestInput<SendSubject>;
  let reply: ReplyOf<SendSubject> & { mediaType?: string };
  try {
    reply = await ctx.call(subject, request as never, { timeoutMs: ctx.config.sendDeadlineMs + SEND_MARGIN_MS });
  } catch (error) {
    if (error instanceof ApiError && error.code === 'DAILY_MESSAGE_LIMIT_REACHED') setLimitReached(ctx.reply, error);
    throw error;
  }
  if (reply.usage) setRateLimit(ctx.reply, reply.usage);
  if (reply.status === 'pending') ctx.reply.code(202);
  const { messageId, status, timestamp, mediaType } = reply;
  return success({ messageId, status, timestamp, ...(mediaType ? { mediaType } : {}) }) as never;
}

/** The Idempotency-Key header, validated like a body field (400 with its path when malformed). */
function idempotencyKeyOf(request: FastifyRequest): string | null {
  const raw = request.headers[HTTP_HEADERS.idempotencyKey];
  if (raw === undefined) return null;
  const parsed = IdempotencyKey.safeParse(raw);
  if (parsed.success) return parsed.data;
  const message = Array.isArray(raw) ? 'send one Idempotency-Key header' : (parsed.error.issues[0]?.message ?? 'invalid');
  throw new ApiError('VALIDATION_ERROR', undefined, [{ path: 'headers.idempotency-key', message: `Idempotency-Key ${message}` }]);
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
