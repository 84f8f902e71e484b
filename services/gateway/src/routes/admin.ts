import { ADMIN_ENDPOINTS, DEFAULT_KEY_SCOPES, EventsSubjects, MessagingSubjects, QuotaSubjects, SessionsSubjects, success, successMessage } from '@switchboard/contracts';
import { hashApiKey, mintApiKey } from '@switchboard/service-kit';
import type { FastifyInstance } from 'fastify';
import { refuseIdempotencyKey } from '../http/idempotency.js';
import { defineRoute } from './kit.js';

/**
 * Why admin POSTs refuse Idempotency-Key: their answer is a raw API key that is never stored, so a
 * repeat could not return the first response; a client that sent a key would wrongly believe a
 * retry is safe (it would mint a second account or key).
 */
const ONE_TIME_SECRET = 'this response carries a one-time API key that is never stored, so it cannot be replayed';

/**
 * Closing deletes every session of the account, each logged out of the network with its own
 * deadline (8 at a time); an account with very many may answer 504 while the deletions go on,
 * and closing it again answers once they are done.
 */
const CLOSE_TIMEOUT_MS = 60_000;

/**
 * Erasing reads the account's message facts to find their media (a scan of the message category)
 * before it destroys the key; a large store may take a while. A 504 leaves a repeatable request:
 * erasing again finishes what is left and answers the same `erasedAt`.
 */
const ERASE_TIMEOUT_MS = 120_000;

/**
 * The admin API of api-decisions.md (scope `admin`), over the quota service's subjects (and the
 * sessions service's `deleteAll` to close an account). The gateway mints every key here: only its
 * SHA-256 crosses the bus, and the raw key appears in this one response and nowhere else (not in
 * logs, events or replies).
 */
export function registerAdminRoutes(app: FastifyInstance): void {
  defineRoute(app, ADMIN_ENDPOINTS.createAccount, async (ctx) => {
    refuseIdempotencyKey(ctx.request, ONE_TIME_SECRET);
    const apiKey = mintApiKey();
    const key = { keyHash: hashApiKey(apiKey), scopes: [...DEFAULT_KEY_SCOPES] };
    const account = await ctx.call(QuotaSubjects.accounts.create, { name: ctx.body.name, plan: ctx.body.plan, key });
    if (account.keyId === null) throw new Error('the quota service opened the account without its first key');
    return success({ accountId: account.accountId, name: account.name, plan: account.plan, keyId: account.keyId, apiKey });
  });

  defineRoute(app, ADMIN_ENDPOINTS.listAccounts, async (ctx) => {
    const { limit, offset } = ctx.query;
    const page = await ctx.call(QuotaSubjects.accounts.list, { limit, offset });
    return success({ accounts: page.accounts, total: page.total, limit, offset });
  });

  defineRoute(app, ADMIN_ENDPOINTS.listKeys, async (ctx) =>
    success(await ctx.call(QuotaSubjects.keys.list, { accountId: ctx.params.accountId })),
  );

  defineRoute(app, ADMIN_ENDPOINTS.getAccount, async (ctx) =>
    success(await ctx.call(QuotaSubjects.accounts.get, { accountId: ctx.params.accountId })),
  );

  defineRoute(app, ADMIN_ENDPOINTS.patchAccount, async (ctx) =>
    success(await ctx.call(QuotaSubjects.accounts.update, { accountId: ctx.params.accountId, ...ctx.body })),
  );

  defineRoute(app, ADMIN_ENDPOINTS.closeAccount, async (ctx) => {
    const { accountId } = ctx.params;
    // Quota first: from here on no key of the account works and no session or message starts.
    const closed = await ctx.call(QuotaSubjects.accounts.close, { accountId });
    for (const keyId of closed.keysRevoked) app.gateway.auth.forgetKey(keyId);
    const sessions = await ctx.call(SessionsSubjects.deleteAll, { accountId }, { timeoutMs: CLOSE_TIMEOUT_MS });
    return success({ accountId, closedAt: closed.closedAt, sessionsDeleted: sessions.deleted.length, keysRevoked: closed.keysRevoked.length });
  });

  defineRoute(app, ADMIN_ENDPOINTS.eraseAccount, async (ctx) => {
    const { accountId } = ctx.params;
    // An unknown account is 404 ACCOUNT_NOT_FOUND, not an empty erasure.
    await ctx.call(QuotaSubjects.accounts.get, { accountId });
    // Messaging first: the keys are gone before the events service's copies are rewritten.
    const erased = await ctx.call(MessagingSubjects.eraseContents, { accountId }, { timeoutMs: ERASE_TIMEOUT_MS });
    const copies = await ctx.call(EventsSubjects.eraseContents, { accountId, erasedAt: erased.erasedAt });
    return success({ ...erased, publicEventsErased: copies.eventsErased });
  });

  defineRoute(app, ADMIN_ENDPOINTS.createKey, async (ctx) => {
    refuseIdempotencyKey(ctx.request, ONE_TIME_SECRET);
    const apiKey = mintApiKey();
    const scopes = ctx.body.scopes ?? [...DEFAULT_KEY_SCOPES];
    const key = await ctx.call(QuotaSubjects.keys.create, { accountId: ctx.params.accountId, keyHash: hashApiKey(apiKey), scopes });
    return success({ keyId: key.keyId, scopes: key.scopes, apiKey });
  });

  defineRoute(app, ADMIN_ENDPOINTS.revokeKey, async (ctx) => {
    const revoked = await ctx.call(QuotaSubjects.keys.revoke, { keyId: ctx.params.keyId });
    // This replica stops accepting the key at once; the others on the ApiKeyRevoked fact.
    app.gateway.auth.forgetKey(revoked.keyId);
    return successMessage('API key revoked');
  });
}
