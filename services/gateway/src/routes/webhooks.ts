import { CREATE_WEBHOOK_KIND, EventsSubjects, HTTP_HEADERS, success, successMessage, WEBHOOK_ENDPOINTS } from '@switchboard/contracts';
import type { FastifyInstance } from 'fastify';
import { idempotencyOf, refuseIdempotencyKey } from '../http/idempotency.js';
import { defineRoute } from './kit.js';

const W = WEBHOOK_ENDPOINTS;
const S = EventsSubjects;
/**
 * Refused rather than ignored on the webhook POSTs but the create: a client that sends the header
 * counts on a retry being safe, and a retried rotation would mint a second secret.
 */
const NOT_REPLAYED = 'only a webhook create is replayed by key; send this request again without it (after a failed secret rotation, rotate again and use the secret that answer shows)';

/**
 * The webhook endpoints (issue 11), each also under /api/v1: the events service does the work.
 * A webhook of another account answers 404 WEBHOOK_NOT_FOUND, as one that does not exist.
 */
export function registerWebhookRoutes(app: FastifyInstance): void {
  defineRoute(app, W.create, async (ctx) => {
    // A retried create (after a 504, say) with the same key answers for the first webhook.
    const idempotency = idempotencyOf(ctx.request, ctx.body, CREATE_WEBHOOK_KIND) ?? undefined;
    const { replayed, ...created } = await ctx.call(S.createWebhook, { accountId: ctx.accountId, body: ctx.body, idempotency });
    if (replayed) ctx.reply.header(HTTP_HEADERS.idempotentReplayed, 'true');
    return success(created);
  });
  defineRoute(app, W.list, async (ctx) => success(await ctx.call(S.listWebhooks, { accountId: ctx.accountId })));
  defineRoute(app, W.get, async (ctx) => success(await ctx.call(S.getWebhook, { accountId: ctx.accountId, webhookId: ctx.params.webhookId })));
  defineRoute(app, W.update, async (ctx) =>
    success(await ctx.call(S.updateWebhook, { accountId: ctx.accountId, webhookId: ctx.params.webhookId, body: ctx.body })),
  );
  defineRoute(app, W.delete, async (ctx) => {
    await ctx.call(S.deleteWebhook, { accountId: ctx.accountId, webhookId: ctx.params.webhookId });
    return successMessage('Webhook deleted.');
  });
  defineRoute(app, W.rotateSecret, async (ctx) => {
    refuseIdempotencyKey(ctx.request, NOT_REPLAYED);
    return success(await ctx.call(S.rotateSecret, { accountId: ctx.accountId, webhookId: ctx.params.webhookId }));
  });
  defineRoute(app, W.deliveries, async (ctx) => {
    const { status, limit, cursor } = ctx.query;
    return success(await ctx.call(S.listDeliveries, { accountId: ctx.accountId, webhookId: ctx.params.webhookId, limit, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) }));
  });
  defineRoute(app, W.replay, async (ctx) => {
    refuseIdempotencyKey(ctx.request, NOT_REPLAYED);
    return success(await ctx.call(S.replay, { accountId: ctx.accountId, webhookId: ctx.params.webhookId, body: ctx.body }));
  });
  defineRoute(app, W.test, async (ctx) => {
    refuseIdempotencyKey(ctx.request, NOT_REPLAYED);
    return success(await ctx.call(S.test, { accountId: ctx.accountId, webhookId: ctx.params.webhookId }));
  });
}
