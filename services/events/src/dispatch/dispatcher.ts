import http from 'node:http';
import https from 'node:https';
import type { Resolver } from '@switchboard/net-policy';
import { Webhook } from 'standardwebhooks';
import type { Logger } from '@switchboard/telemetry';
import type { DeliveryStore, DueDelivery } from '../store/deliveries.js';
import type { SealedSecrets } from '../store/secrets.js';
import type { WebhookQueries, WebhookRecord } from '../webhook/projection.js';
import { postWebhook } from './post.js';
import { nextAttemptAt } from './retry-schedule.js';
import { webhookHeaders } from './sign.js';

export interface DispatcherOptions {
  deliveries: DeliveryStore;
  webhooks: WebhookQueries;
  secrets: SealedSecrets;
  schedule: readonly number[];
  allowLoopback: boolean;
  timeoutMs: number;
  /** How often due retries are looked for (new events kick the dispatcher at once). */
  pollMs: number;
  resolver?: Resolver | undefined;
  logger: Logger;
  now?: () => number;
}

/** Sessions of one endpoint attempted at once (each session still strictly one at a time). */
const PER_ENDPOINT_CONCURRENCY = 8;

/**
 * Sends pending deliveries. Each webhook has its own worker, so a slow or dead endpoint holds up
 * only itself; within a webhook, the oldest pending delivery of each session goes first and alone
 * (a session's events arrive in order), up to PER_ENDPOINT_CONCURRENCY sessions at once. State
 * lives in the database only: a kill at any point leaves the delivery pending, and the next start
 * sends it again (at least once, same `webhook-id`).
 */
export class Dispatcher {
  private readonly workers = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private readonly agents = new Map<string, http.Agent>();
  /** Unsealed signers by `webhookId:fingerprint`: a burst does not decrypt a secret per attempt. */
  private readonly signers = new Map<string, Webhook>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly o: DispatcherOptions) {
    this.now = o.now ?? Date.now;
  }

  start(): void {
    this.timer = setInterval(() => this.kick(), this.o.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Looks for due deliveries (of one webhook, or all) and starts their workers. */
  kick(webhookId?: string): void {
    if (this.stopped) return;
    const ids = webhookId ? [webhookId] : this.o.deliveries.dueWebhooks(this.now());
    for (const id of ids) {
      if (this.workers.has(id)) {
        this.again.add(id);
        continue;
      }
      const work = this.work(id)
        .catch((error: unknown) => this.o.logger.error({ err: error, webhookId: id }, 'webhook worker stopped'))
        .finally(() => this.workers.delete(id));
      this.workers.set(id, work);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    // Attempts in flight are not waited for past a moment: their deliveries stay pending and go
    // out again after the restart (the receiver deduplicates by webhook-id).
    await Promise.race([Promise.all(this.workers.values()), new Promise((resolve) => setTimeout(resolve, 1_000))]);
    for (const agent of this.agents.values()) agent.destroy();
  }

  private async work(webhookId: string): Promise<void> {
    do {
      this.again.delete(webhookId);
      for (;;) {
        if (this.stopped) return;
        const webhook = this.o.webhooks.get(webhookId);
        if (webhook === undefined || webhook.deleted) {
          this.o.deliveries.failPending(webhookId, 'webhook_deleted', this.now());
          for (const key of this.signers.keys()) if (key.startsWith(`${webhookId}:`)) this.signers.delete(key);
          return;
        }
        // A disabled webhook keeps its deliveries pending until it is enabled again.
        if (!webhook.enabled) return;
        const heads = this.o.deliveries.dueHeads(webhookId, this.now(), PER_ENDPOINT_CONCURRENCY);
        if (heads.length === 0) break;
        await Promise.all(heads.map((delivery) => this.attempt(webhook, delivery)));
      }
    } while (this.again.has(webhookId));
  }

  private async attempt(webhook: WebhookRecord, delivery: DueDelivery): Promise<void> {
    const started = new Date(this.now());
    let outcome: { status: number } | { error: string };
    try {
      const headers = webhookHeaders(delivery.eventId, delivery.body, this.signingSecrets(webhook, started.getTime()), started);
      outcome = await postWebhook(webhook.url, headers, delivery.body, {
        allowLoopback: this.o.allowLoopback,
        timeoutMs: this.o.timeoutMs,
        resolver: this.o.resolver,
        agent: this.agentFor(webhook),
      });
    } catch (error) {
      this.o.logger.error({ err: error, webhookId: webhook.webhookId }, 'webhook attempt could not be made');
      outcome = { error: 'internal_error' };
    }
    if (this.stopped) return;
    const now = this.now();
    if ('status' in outcome && outcome.status >= 200 && outcome.status < 300) {
      this.o.deliveries.succeeded(delivery.deliveryId, outcome.status, now);
      return;
    }
    const attempts = delivery.attempts + 1;
    const next = nextAttemptAt(this.o.schedule, attempts, now, Math.random());
    const status = 'status' in outcome ? outcome.status : null;
    const error = 'status' in outcome ? `http_${outcome.status}` : outcome.error;
    this.o.deliveries.attemptFailed(delivery.deliveryId, status, error, now, next);
  }

  /** The current secret, and the previous one while its overlap lasts. */
  private signingSecrets(webhook: WebhookRecord, now: number): Webhook[] {
    const fingerprints = [webhook.secretFingerprint];
    if (webhook.previous && Date.parse(webhook.previous.validUntil) > now) fingerprints.push(webhook.previous.fingerprint);
    const signers = fingerprints.map((fp) => this.signer(webhook.webhookId, fp)).filter((s): s is Webhook => s !== undefined);
    if (signers.length === 0) throw new Error('no sealed secret for this webhook');
    return signers;
  }

  private signer(webhookId: string, fingerprint: string): Webhook | undefined {
    const key = `${webhookId}:${fingerprint}`;
    let signer = this.signers.get(key);
    if (!signer) {
      const secret = this.o.secrets.get(webhookId, fingerprint);
      if (secret === undefined) return undefined;
      signer = new Webhook(secret);
      this.signers.set(key, signer);
    }
    return signer;
  }

  /** One keep-alive agent per endpoint: a burst reuses its connections; endpoints share none. */
  private agentFor(webhook: WebhookRecord): http.Agent {
    const key = `${webhook.webhookId} ${webhook.url}`;
    let agent = this.agents.get(key);
    if (!agent) {
      const Agent = webhook.url.startsWith('https:') ? https.Agent : http.Agent;
      agent = new Agent({ keepAlive: true, maxSockets: PER_ENDPOINT_CONCURRENCY });
      this.agents.set(key, agent);
    }
    return agent;
  }
}
