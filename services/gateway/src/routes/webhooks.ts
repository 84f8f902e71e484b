import { EventsSubjects, success, successMessage, WEBHOOK_ENDPOINTS } from '@switchboard/contracts';
import type { FastifyInstance } from 'fastify';
import { defineRoute } from './kit.js';

const W = WEBHOOK_ENDPOINTS;
const S = EventsSubjects;

/**
 * The webhook endpoints (issue 11), each also under /api/v1: the events service does the work.
 * A webhook of another account answers 404 WEBHOOK_NOT_FOUND, as one that does not exist.
 */
export function registerWebhookRoutes(app: FastifyInstance): void {
  defineRoute(app, W.create, async (ctx) => success(await ctx.call(S.createWebhook, { accountId: ctx.accountId, body: ctx.body })));
  defineRoute(app, W.list, async (ctx) => success(await ctx.call(S.listWebhooks, { accountId: ctx.accountId })));
  defineRoute(app, W.get, async (ctx) => success(await ctx.call(S.getWebhook, { accountId: ctx.accountId, webhookId: ctx.params.webhookId })));
  defineRoute(app, W.update, async (ctx) =>
    success(await ctx.call(S.updateWebhook, { accountId: ctx.accountId, webhookId: ctx.params.webhookId, body: ctx.body })),
  );
  defineRoute(app, W.delete, async (ctx) => {
    await ctx.call(S.deleteWebhook, { accountId: ctx.accountId, webhookId: ctx.params.webhookId });
    return successMessage('Webhook deleted.');
  });
  defineRoute(app, W.rotateSecret, async (ctx) => success(await ctx.call(S.rotateSecret, { accountId: ctx.accountId, webhookId: ctx.params.webhookId })));
  defineRoute(app, W.deliveries, async (ctx) => {
    const { status, limit, cursor } = ctx.query;
    return success(await ctx.call(S.listDeliveries, { accountId: ctx.accountId, webhookId: ctx.params.webhookId, limit, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) }));
  });
  defineRoute(app, W.replay, async (ctx) => success(await ctx.call(S.replay, { accountId: ctx.accountId, webhookId: ctx.params.webhookId, body: ctx.body })));
  defineRoute(app, W.test, async (ctx) => success(await ctx.call(S.test, { accountId: ctx.accountId, webhookId: ctx.params.webhookId })));
}
