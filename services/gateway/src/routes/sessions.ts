import { CREATE_SESSION_KIND, HTTP_HEADERS, SESSION_ENDPOINTS, SessionsSubjects, success, successMessage } from '@switchboard/contracts';
import type { FastifyInstance } from 'fastify';
import { idempotencyOf } from '../http/idempotency.js';
import { defineRoute } from './kit.js';

/**
 * The session endpoints of service-spec.md, over the sessions service's subjects. Creating a
 * session waits for the network's first pairing code, so its deadline is longer than a lookup's.
 */
const CREATE_TIMEOUT_MS = 30_000;

export function registerSessionRoutes(app: FastifyInstance): void {
  defineRoute(app, SESSION_ENDPOINTS.create, async (ctx) => {
    // A retried create (after a 504, say) with the same key answers for the first session.
    const idempotency = idempotencyOf(ctx.request, ctx.body, CREATE_SESSION_KIND) ?? undefined;
    const command = { accountId: ctx.accountId, name: ctx.body.name, phoneNumber: ctx.body.phoneNumber, idempotency };
    const { replayed, ...created } = await ctx.call(SessionsSubjects.create, command, { timeoutMs: CREATE_TIMEOUT_MS });
    if (replayed) ctx.reply.header(HTTP_HEADERS.idempotentReplayed, 'true');
    return success(created);
  });

  defineRoute(app, SESSION_ENDPOINTS.list, async (ctx) =>
    success(await ctx.call(SessionsSubjects.list, { accountId: ctx.accountId, ...ctx.query })),
  );

  defineRoute(app, SESSION_ENDPOINTS.get, async (ctx) =>
    success(await ctx.call(SessionsSubjects.get, { accountId: ctx.accountId, sessionId: ctx.params.sessionId })),
  );

  defineRoute(app, SESSION_ENDPOINTS.qr, async (ctx) =>
    success(await ctx.call(SessionsSubjects.qr, { accountId: ctx.accountId, sessionId: ctx.params.sessionId })),
  );

  defineRoute(app, SESSION_ENDPOINTS.contact, async (ctx) =>
    success(await ctx.call(SessionsSubjects.contact, { accountId: ctx.accountId, sessionId: ctx.params.sessionId, phone: ctx.params.phone })),
  );

  defineRoute(app, SESSION_ENDPOINTS.delete, async (ctx) => {
    await ctx.call(SessionsSubjects.delete, { accountId: ctx.accountId, sessionId: ctx.params.sessionId }, { timeoutMs: CREATE_TIMEOUT_MS });
    return successMessage('Session disconnected and deleted');
  });
}
