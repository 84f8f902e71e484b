import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
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
  /**
   * The longest the dispatcher sleeps between looks for due deliveries. New events kick it at once
   * and it wakes when the earliest retry is due, so this only bounds what nothing told it of.
   */
  pollMs: number;
  resolver?: Resolver | undefined;
  logger: Logger;
  now?: () => number;
}

/** Sessions of one endpoint attempted at once (each session still strictly one at a time). */
const PER_ENDPOINT_CONCURRENCY = 8;

/**
 * Sends pending deliveries. Each webhook has its own worker, so a slow or dead endpoint holds up
 * only itself. A worker runs up to PER_ENDPOINT_CONCURRENCY session lanes: a lane sends its
 * session's head, and on success goes straight on to the next delivery of that session (a session's
 * events arrive in order, one at a time); a failed attempt ends the lane until its retry is due.
 * State lives in the database only: a kill at any point leaves the delivery pending, and the next
 * start sends it again (at least once, same `webhook-id`).
 */
export class Dispatcher {
  private readonly workers = new Map<string, Worker>();
  /** Keep-alive agents by webhook, with the URL each serves. */
  private readonly agents = new Map<string, { url: string; agent: http.Agent }>();
  /** Unsealed signers by `webhookId:fingerprint`: a burst does not decrypt a secret per attempt. */
  private readonly signers = new Map<string, Webhook>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly now: () => number;

  constructor(private readonly o: DispatcherOptions) {
    this.now = o.now ?? Date.now;
  }

  start(): void {
    this.kick();
  }

  /** Looks for due deliveries (of one webhook, or all) and starts their workers. */
  kick(webhookId?: string): void {
    if (this.stopped) return;
    // A look at every webhook reads the heads once: for the next wake-up and for what is due now.
    const waiting = webhookId ? undefined : this.waiting();
    if (waiting) this.sleepUntilNextDue(waiting);
    const now = this.now();
    const ids = waiting ? waiting.filter((head) => head.at <= now).map((head) => head.webhookId) : [webhookId!];
    for (const id of ids) {
      const running = this.workers.get(id);
      if (running) {
        running.wake();
        continue;
      }
      const worker = new Worker();
      worker.done = this.work(id, worker)
        .catch((error: unknown) => this.o.logger.error({ err: error, webhookId: id }, 'webhook worker stopped'))
        .finally(() => {
          this.workers.delete(id);
          // Its deliveries may wait for a retry now: the next look is when the earliest is due.
          this.sleepUntilNextDue();
          // Work that came while the worker was finishing is not left for the next poll.
          if (worker.wokenSinceSleep()) this.kick(id);
        });
      this.workers.set(id, worker);
    }
  }

  /**
   * The next look for due deliveries of every webhook: when the earliest pending one is due, at
   * the latest `pollMs` from now. Idle (nothing pending), the dispatcher wakes only every `pollMs`.
   */
  private sleepUntilNextDue(waiting = this.waiting()): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    const next = waiting.reduce<number | null>((earliest, head) => (earliest === null || head.at < earliest ? head.at : earliest), null);
    const waitMs = next === null ? this.o.pollMs : Math.min(Math.max(next - this.now(), 0), this.o.pollMs);
    this.timer = setTimeout(() => this.kick(), waitMs);
    this.timer.unref();
  }

  /**
   * The earliest pending head of each webhook whose deliveries may go out: a disabled webhook's wait
   * until it is enabled again (which kicks it) and are not looked at meanwhile, since a due head
   * there would wake the dispatcher at once, again and again. A deleted one's are: its worker fails them.
   */
  private waiting(): { webhookId: string; at: number }[] {
    return this.o.deliveries.headsDue().filter(({ webhookId }) => {
      const webhook = this.o.webhooks.get(webhookId);
      return webhook === undefined || webhook.deleted || webhook.enabled;
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const worker of this.workers.values()) worker.wake();
    // Attempts in flight are not waited for past a moment: their deliveries stay pending and go
    // out again after the restart (the receiver deduplicates by webhook-id).
    await Promise.race([Promise.all([...this.workers.values()].map((w) => w.done)), new Promise((resolve) => setTimeout(resolve, 1_000))]);
    for (const { agent } of this.agents.values()) agent.destroy();
  }

  /** Starts a lane for each due session without one, while lanes are free; ends when none is left. */
  private async work(webhookId: string, worker: Worker): Promise<void> {
    const lanes = new Map<string, Promise<void>>();
    for (;;) {
      const woken = worker.sleep();
      if (this.stopped || this.usable(webhookId) === undefined) break;
      if (lanes.size < PER_ENDPOINT_CONCURRENCY) {
        // Asking for as many as could be busy plus free: the busy ones' heads come back too.
        for (const head of this.o.deliveries.dueHeads(webhookId, this.now(), PER_ENDPOINT_CONCURRENCY + lanes.size)) {
          if (lanes.size >= PER_ENDPOINT_CONCURRENCY) break;
          if (lanes.has(head.sessionKey)) continue;
          // A lane that fails (its database busy, say) ends alone and leaves its delivery pending: a
          // rejection here would end the worker while its other lanes still run, and the next kick
          // could start a second lane on one of their sessions (out of order, or twice).
          const lane = this.lane(head).catch((error: unknown) => this.o.logger.error({ err: error, webhookId }, 'webhook delivery lane stopped; its delivery stays pending'));
          lanes.set(head.sessionKey, lane.finally(() => lanes.delete(head.sessionKey)));
        }
      }
      if (lanes.size === 0) break;
      await Promise.race([woken, ...lanes.values()]);
    }
    await Promise.all(lanes.values());
  }

  /** Sends one session's deliveries in order while they succeed and are due. */
  private async lane(first: DueDelivery): Promise<void> {
    for (let delivery: DueDelivery | undefined = first; delivery !== undefined && !this.stopped; ) {
      const webhook = this.usable(delivery.webhookId);
      if (webhook === undefined) return;
      delivery = await this.attempt(webhook, delivery);
    }
  }

  /** The webhook if its deliveries may go out now; a deleted one fails its pending deliveries. */
  private usable(webhookId: string): WebhookRecord | undefined {
    const webhook = this.o.webhooks.get(webhookId);
    if (webhook === undefined || webhook.deleted) {
      this.o.deliveries.failPending(webhookId, 'webhook_deleted', this.now());
      for (const key of this.signers.keys()) if (key.startsWith(`${webhookId}:`)) this.signers.delete(key);
      this.retireAgent(webhookId);
      return undefined;
    }
    // A disabled webhook keeps its deliveries pending until it is enabled again.
    return webhook.enabled ? webhook : undefined;
  }

  /** One attempt; resolves with the session's next delivery when this one is done and the next is due. */
  private async attempt(webhook: WebhookRecord, delivery: DueDelivery): Promise<DueDelivery | undefined> {
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
    if (this.stopped) return undefined;
    const now = this.now();
    if ('status' in outcome && outcome.status >= 200 && outcome.status < 300) {
      return this.o.deliveries.succeeded(delivery, outcome.status, now);
    }
    const attempts = delivery.attempts + 1;
    const next = nextAttemptAt(this.o.schedule, attempts, now, Math.random());
    const status = 'status' in outcome ? outcome.status : null;
    const error = 'status' in outcome ? `http_${outcome.status}` : outcome.error;
    const following = this.o.deliveries.attemptFailed(delivery, status, error, now, next);
    // A retry may now be the earliest thing due: the sleep is cut to it.
    if (next !== null) this.sleepUntilNextDue();
    return following;
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

  /**
   * One keep-alive agent per webhook: a burst reuses its connections; webhooks share none. A new
   * URL gets a new agent, and the old one's connections are closed.
   */
  private agentFor(webhook: WebhookRecord): http.Agent {
    const current = this.agents.get(webhook.webhookId);
    if (current?.url === webhook.url) return current.agent;
    this.retireAgent(webhook.webhookId);
    const Agent = webhook.url.startsWith('https:') ? https.Agent : http.Agent;
    const agent = new Agent({ keepAlive: true, maxSockets: PER_ENDPOINT_CONCURRENCY });
    this.agents.set(webhook.webhookId, { url: webhook.url, agent });
    return agent;
  }

  /**
   * The webhook's URL changed or it was deleted: its kept-alive connections go now (idle ones), or
   * once their attempt is over (it is not cut short), without waiting for its next delivery.
   */
  retireAgent(webhookId: string): void {
    const retired = this.agents.get(webhookId)?.agent;
    if (!retired) return;
    this.agents.delete(webhookId);
    retired.on('free', (socket: Socket) => socket.destroy());
    for (const sockets of Object.values(retired.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
  }
}

/** A webhook's worker: woken when new deliveries may have become due (a kick while it runs). */
class Worker {
  done: Promise<void> = Promise.resolve();
  private wakeUp: (() => void) | undefined;
  private wakes = 0;
  private seen = 0;

  /** A promise that resolves at the next wake(), or at once if one came since the last sleep. */
  sleep(): Promise<void> {
    if (this.wakes !== this.seen) {
      this.seen = this.wakes;
      return Promise.resolve();
    }
    return new Promise((resolve) => (this.wakeUp = resolve));
  }

  /** A wake-up came after the last sleep began (its work may not have been looked for). */
  wokenSinceSleep(): boolean {
    return this.wakes !== this.seen;
  }

  wake(): void {
    this.wakes++;
    const wakeUp = this.wakeUp;
    this.wakeUp = undefined;
    wakeUp?.();
  }
}
