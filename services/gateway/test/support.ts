import { ApiError, QuotaSubjects, subjectForEvent } from '@switchboard/contracts';
import type { AccountView, ApiKeyScope, Plan } from '@switchboard/contracts';
import { InProcessBus } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { loadConfig } from '@switchboard/service-kit';
import { createLogger } from '@switchboard/telemetry';
import type { FastifyInstance } from 'fastify';
import { ulid } from 'ulid';
import { buildGateway } from '../src/index.js';
import type { ObservedResponse } from '../src/testing/index.js';
import type { BuildGatewayOptions } from '../src/index.js';

export const ADMIN_KEY = 'test-operator-key-0123456789';

export const silentLogger = () => createLogger({ service: 'gateway-test', level: 'silent' });

/** What the gateways of this test file answered (checked against the OpenAPI document after the file). */
export const observedResponses: ObservedResponse[] = [];

export async function startGateway(bus: Bus, options: Partial<BuildGatewayOptions> = {}): Promise<FastifyInstance> {
  const config = loadConfig({ SWITCHBOARD_ADMIN_API_KEY: ADMIN_KEY });
  const app = await buildGateway({ bus, config, logger: silentLogger(), ...options });
  app.addHook('onSend', async (request, reply, payload) => {
    const code = reply.statusCode >= 400 && typeof payload === 'string' ? errorCodeOf(payload) : undefined;
    observedResponses.push({ method: request.method, url: request.url, status: reply.statusCode, code });
    return payload;
  });
  await app.ready();
  return app;
}

function errorCodeOf(body: string): string | undefined {
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code;
  } catch {
    return undefined;
  }
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

interface KeyRecord {
  keyId: string;
  accountId: string;
  scopes: ApiKeyScope[];
  revoked: boolean;
}

/**
 * Stands in for the quota service on an InProcessBus: the same subjects, replies and published
 * facts (ApiKeyRevoked, PlanChanged as PublishedEvent), kept in memory. Used until, and next to,
 * the tests against the real quota service.
 */
export class FakeQuota {
  readonly accounts = new Map<string, { accountId: string; name: string | null; plan: Plan }>();
  readonly keys = new Map<string, KeyRecord>();
  authenticateCalls = 0;

  private constructor(private readonly bus: Bus) {}

  static async start(bus: Bus): Promise<FakeQuota> {
    const quota = new FakeQuota(bus);
    await quota.subscribe();
    return quota;
  }

  private async subscribe(): Promise<void> {
    const on = (subject: string, handler: (data: never) => unknown) =>
      this.bus.subscribe(subject, (message) => handler(message.data as never), { queue: 'sb.v1.quota' });
    await on(QuotaSubjects.authenticate.subject, (req: { keyHash: string }) => this.authenticate(req.keyHash));
    await on(QuotaSubjects.accounts.create.subject, (req: { name?: string; plan: Plan; key?: { keyHash: string; scopes: ApiKeyScope[] } }) => {
      const accountId = `acc_${ulid()}`;
      this.accounts.set(accountId, { accountId, name: req.name ?? null, plan: req.plan });
      const keyId = req.key ? this.issue(accountId, req.key.keyHash, req.key.scopes) : null;
      return { accountId, name: req.name ?? null, plan: req.plan, keyId };
    });
    await on(QuotaSubjects.accounts.get.subject, (req: { accountId: string }) => this.view(req.accountId));
    await on(QuotaSubjects.accounts.update.subject, async (req: { accountId: string; plan?: Plan; name?: string }) => {
      const account = this.account(req.accountId);
      if (req.name !== undefined) account.name = req.name;
      if (req.plan !== undefined) {
        const from = account.plan;
        account.plan = req.plan;
        await this.publish('PlanChanged', req.accountId, { accountId: req.accountId, from, to: req.plan, changedAt: new Date().toISOString() });
      }
      return this.view(req.accountId);
    });
    await on(QuotaSubjects.keys.create.subject, (req: { accountId: string; keyHash: string; scopes: ApiKeyScope[] }) => {
      this.account(req.accountId);
      const keyId = this.issue(req.accountId, req.keyHash, req.scopes);
      return { keyId, accountId: req.accountId, scopes: req.scopes, createdAt: new Date().toISOString(), revokedAt: null };
    });
    await on(QuotaSubjects.keys.revoke.subject, async (req: { keyId: string }) => {
      const key = [...this.keys.values()].find((k) => k.keyId === req.keyId);
      if (!key) throw new ApiError('KEY_NOT_FOUND');
      key.revoked = true;
      const revokedAt = new Date().toISOString();
      await this.publish('ApiKeyRevoked', key.accountId, { accountId: key.accountId, keyId: key.keyId, revokedAt });
      return { keyId: key.keyId, accountId: key.accountId, revokedAt };
    });
  }

  private authenticate(keyHash: string) {
    this.authenticateCalls += 1;
    const key = this.keys.get(keyHash);
    if (!key || key.revoked) throw new ApiError('UNAUTHORIZED', 'unknown key');
    return { accountId: key.accountId, keyId: key.keyId, scopes: key.scopes, plan: this.account(key.accountId).plan };
  }

  private issue(accountId: string, keyHash: string, scopes: ApiKeyScope[]): string {
    const keyId = `key_${ulid()}`;
    this.keys.set(keyHash, { keyId, accountId, scopes, revoked: false });
    return keyId;
  }

  private account(accountId: string) {
    const account = this.accounts.get(accountId);
    if (!account) throw new ApiError('ACCOUNT_NOT_FOUND');
    return account;
  }

  private view(accountId: string): AccountView {
    return { ...this.account(accountId), activeSessions: 0, messagesToday: 0, closedAt: null };
  }

  private async publish(type: 'PlanChanged' | 'ApiKeyRevoked', accountId: string, data: object): Promise<void> {
    const now = new Date().toISOString();
    await this.bus.publish(subjectForEvent(type), {
      eventId: ulid(),
      stream: `account-${accountId}`,
      revision: 1,
      type,
      version: 1,
      data,
      metadata: { accountId, correlationId: 'c', causationId: 'c', occurredAt: now },
    });
  }
}

/** A bus with the fake quota service on it. */
export async function quotaBus(): Promise<{ bus: InProcessBus; quota: FakeQuota }> {
  const bus = new InProcessBus({ logger: { error() {}, warn() {}, info() {} } });
  return { bus, quota: await FakeQuota.start(bus) };
}

/** Creates an account through the admin API; returns its id and raw key. */
export async function createAccount(app: FastifyInstance, plan: Plan = 'basic'): Promise<{ accountId: string; apiKey: string }> {
  const response = await app.inject({ method: 'POST', url: '/v1/admin/accounts', headers: bearer(ADMIN_KEY), payload: { plan } });
  if (response.statusCode !== 201) throw new Error(`create account: ${response.statusCode} ${response.body}`);
  return response.json<{ data: { accountId: string; apiKey: string } }>().data;
}

export const TRACE_ID = /^[0-9a-f]{32}$/;
