import type { Context } from '@opentelemetry/api';
import { ApiError, ApiKeySecret, PublishedEvent, QuotaSubjects, isApiError, parseBearerToken, subjectForEvent } from '@switchboard/contracts';
import type { Bus, BusSubscription } from '@switchboard/bus';
import { hashApiKey, sameKeyHash } from '@switchboard/service-kit';
import type { FastifyBaseLogger } from 'fastify';
import { KeyCache } from './key-cache.js';
import { OPERATOR } from './principal.js';
import type { Principal } from './principal.js';
import { callService } from '@switchboard/bus';

/**
 * How long a key lookup is reused. Well under the one-second revocation bound of
 * api-decisions.md, leaving room for the quota service's own read model to catch up, and it
 * holds even when a revocation event is lost (bus reconnect, a replica that was restarting).
 */
export const AUTH_CACHE_TTL_MS = 500;
const AUTH_CACHE_MAX_ENTRIES = 10_000;
const LOOKUP_TIMEOUT_MS = 3_000;

export interface AuthenticatorOptions {
  bus: Bus;
  logger: FastifyBaseLogger;
  /** SWITCHBOARD_ADMIN_API_KEY: a key with the `admin` scope and no account. */
  adminApiKey?: string | undefined;
  cacheTtlMs?: number;
}

export interface AuthCallContext {
  requestId: string;
  traceContext?: Context;
}

const MISSING = 'Missing Authorization header: send "Authorization: Bearer <API_KEY>".';
const NOT_BEARER = 'The Authorization header must use the Bearer scheme: "Authorization: Bearer <API_KEY>".';
const INVALID = 'The API key is not valid or has been revoked.';

/**
 * Turns `Authorization: Bearer <key>` into a Principal: the operator key is compared locally in
 * constant time; other keys are looked up by SHA-256 through `quota.authenticate`, cached briefly
 * and evicted at once on `ApiKeyRevoked` / `PlanChanged` facts.
 */
export class Authenticator {
  private readonly cache: KeyCache;
  private readonly adminKeyHash: string | undefined;
  private readonly inflight = new Map<string, { epoch: number; lookup: Promise<Principal> }>();
  private subscriptions: BusSubscription[] = [];

  private constructor(private readonly options: AuthenticatorOptions) {
    this.cache = new KeyCache(options.cacheTtlMs ?? AUTH_CACHE_TTL_MS, AUTH_CACHE_MAX_ENTRIES);
    this.adminKeyHash = options.adminApiKey ? hashApiKey(options.adminApiKey) : undefined;
  }

  static async start(options: AuthenticatorOptions): Promise<Authenticator> {
    const authenticator = new Authenticator(options);
    await authenticator.subscribe();
    return authenticator;
  }

  async authenticate(authorization: string | undefined, ctx: AuthCallContext): Promise<Principal> {
    const token = parseBearerToken(authorization);
    if (token === null) throw new ApiError('UNAUTHORIZED', authorization === undefined ? MISSING : NOT_BEARER);
    const keyHash = hashApiKey(token);
    // A cached hash is a key that passed the checks below moments ago: not parsed again.
    const cached = this.cache.get(keyHash);
    if (cached) return cached;
    if (!ApiKeySecret.safeParse(token).success) throw new ApiError('UNAUTHORIZED', INVALID);
    if (this.adminKeyHash !== undefined && sameKeyHash(keyHash, this.adminKeyHash)) return OPERATOR;
    return this.lookupOnce(keyHash, ctx);
  }

  /** Drops a key from this replica's cache at once (the revoking replica need not wait for the fact). */
  forgetKey(keyId: string): void {
    this.cache.evictWhere((principal) => principal.keyId === keyId);
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.subscriptions.map((s) => s.unsubscribe()));
    this.subscriptions = [];
  }

  /** Concurrent requests with the same key share one lookup, unless an eviction came between. */
  private lookupOnce(keyHash: string, ctx: AuthCallContext): Promise<Principal> {
    const epoch = this.cache.epoch;
    const running = this.inflight.get(keyHash);
    if (running && running.epoch === epoch) return running.lookup;
    const lookup = this.lookup(keyHash, epoch, ctx).finally(() => {
      if (this.inflight.get(keyHash)?.lookup === lookup) this.inflight.delete(keyHash);
    });
    this.inflight.set(keyHash, { epoch, lookup });
    return lookup;
  }

  private async lookup(keyHash: string, epoch: number, ctx: AuthCallContext): Promise<Principal> {
    try {
      const found = await callService(this.options.bus, QuotaSubjects.authenticate, { keyHash }, { correlationId: ctx.requestId, traceContext: ctx.traceContext, timeoutMs: LOOKUP_TIMEOUT_MS });
      const principal: Principal = { kind: 'account', ...found };
      this.cache.set(keyHash, principal, epoch);
      return principal;
    } catch (error) {
      // The quota service's own wording may differ; a client sees one sentence for every bad key.
      if (isApiError(error) && error.code === 'UNAUTHORIZED') throw new ApiError('UNAUTHORIZED', INVALID);
      throw error;
    }
  }

  private async subscribe(): Promise<void> {
    const { bus } = this.options;
    this.subscriptions = await Promise.all([
      bus.subscribe(subjectForEvent('ApiKeyRevoked'), (message) => this.evict(message.data, 'keyId')),
      bus.subscribe(subjectForEvent('PlanChanged'), (message) => this.evict(message.data, 'accountId')),
    ]);
  }

  /** Drops the principals an event is about; an unreadable event drops the whole cache (safe side). */
  private evict(message: unknown, field: 'keyId' | 'accountId'): void {
    const value = eventData(message)?.[field];
    if (typeof value === 'string') this.cache.evictWhere((principal) => principal[field] === value);
    else {
      this.options.logger.warn({ field }, 'unreadable key event; clearing the API key cache');
      this.cache.clear();
    }
  }
}

/** The `data` of a published fact (`PublishedEvent`), or of a bare `{type, data}` event. */
function eventData(message: unknown): Record<string, unknown> | undefined {
  const published = PublishedEvent.safeParse(message);
  const data = published.success ? published.data.data : (message as { data?: unknown } | null)?.data;
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : undefined;
}
