import { ApiError, SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_SECRET_OVERLAP_MS, webhookStream } from '@switchboard/contracts';
import type {
  CreatedWebhook,
  CreateWebhookBody,
  DeliveryPage,
  EventStreamPage,
  ReadEventStreamRequest,
  ReadyReply,
  ReplayBody,
  ReplayResult,
  RotatedWebhookSecret,
  TestResult,
  UpdateWebhookBody,
  WebhookList,
  WebhookRef,
  WebhookView,
} from '@switchboard/contracts';
import type { EventStore } from '@switchboard/eventstore';
import type { Resolver } from '@switchboard/net-policy';
import { checkedAddress } from '@switchboard/net-policy';
import { eventMetadata, executeCommand, ulid } from '@switchboard/service-kit';
import type { ProjectionRunner } from '@switchboard/service-kit';
import type { ContentErasures } from '../store/content-erasures.js';
import { decodeCursor } from '../store/deliveries.js';
import type { DeliveryStore } from '../store/deliveries.js';
import type { PublicFeed } from '../store/public-feed.js';
import { mintWebhookSecret } from '../store/secrets.js';
import type { SealedSecrets } from '../store/secrets.js';
import { readStreamPage } from '../stream/read-stream.js';
import type { WebhookCommand } from '../webhook/commands.js';
import { decide } from '../webhook/decide.js';
import { WebhookNotFound } from '../webhook/errors.js';
import { webhookFold } from '../webhook/fold.js';
import { viewOf } from '../webhook/projection.js';
import type { WebhookQueries, WebhookRecord } from '../webhook/projection.js';

export interface EventsApiDeps {
  store: EventStore;
  runner: ProjectionRunner;
  webhooks: WebhookQueries;
  secrets: SealedSecrets;
  feed: PublicFeed;
  deliveries: DeliveryStore;
  erasures: ContentErasures;
  allowLoopback: boolean;
  resolver?: Resolver | undefined;
  readiness: () => ReadyReply;
  /** New deliveries were queued for this webhook (replay, test). */
  kick(webhookId: string): void;
  now?: () => Date;
}

/** Everything the events service answers on the bus, one method per subject (requests parsed). */
export class EventsApi {
  /** Creates of one account run one after the other, so two at once cannot pass the limit. */
  private readonly creating = new Map<string, Promise<unknown>>();

  constructor(private readonly d: EventsApiDeps) {}

  readiness(): ReadyReply {
    return this.d.readiness();
  }

  /** `sb.v1.events.eraseContents`: the account's recorded message contents up to `erasedAt` read `[erased]`. */
  eraseContents(request: { accountId: string; erasedAt: string }): { eventsErased: number; deliveriesErased: number } {
    return this.d.erasures.erase(request.accountId, request.erasedAt);
  }

  async createWebhook(accountId: string, body: CreateWebhookBody): Promise<CreatedWebhook> {
    await this.checkUrl(body.url);
    const previous = this.creating.get(accountId) ?? Promise.resolve();
    const run = previous.catch(() => undefined).then(() => this.create(accountId, body));
    this.creating.set(accountId, run);
    try {
      return await run;
    } finally {
      if (this.creating.get(accountId) === run) this.creating.delete(accountId);
    }
  }

  listWebhooks(accountId: string): WebhookList {
    return { webhooks: this.d.webhooks.list(accountId).map(viewOf) };
  }

  getWebhook(ref: WebhookRef): WebhookView {
    return viewOf(this.owned(ref));
  }

  async updateWebhook(ref: WebhookRef, body: UpdateWebhookBody): Promise<WebhookView> {
    this.owned(ref);
    if (body.url !== undefined) await this.checkUrl(body.url);
    await this.execute(ref.webhookId, { type: 'UpdateWebhook', accountId: ref.accountId, changes: body, now: this.clock() });
    // Enabled again: what waited meanwhile goes out now, not at the dispatcher's next look.
    if (body.enabled === true) this.d.kick(ref.webhookId);
    return viewOf(this.owned(ref));
  }

  async deleteWebhook(ref: WebhookRef): Promise<{ deleted: true }> {
    await this.execute(ref.webhookId, { type: 'DeleteWebhook', accountId: ref.accountId, now: this.clock() });
    this.d.deliveries.failPending(ref.webhookId, 'webhook_deleted', Date.now());
    return { deleted: true };
  }

  async rotateSecret(ref: WebhookRef): Promise<RotatedWebhookSecret> {
    this.owned(ref);
    const secret = mintWebhookSecret();
    const secretFingerprint = this.d.secrets.put(ref.webhookId, secret);
    const result = await this.execute(ref.webhookId, { type: 'RotateSecret', accountId: ref.accountId, secretFingerprint, overlapMs: WEBHOOK_SECRET_OVERLAP_MS, now: this.clock() });
    const rotated = result.events.find((e) => e.type === 'WebhookSecretRotated');
    if (rotated?.type !== 'WebhookSecretRotated') throw new WebhookNotFound();
    return { webhookId: ref.webhookId, secret, previousSecretValidUntil: rotated.data.previousValidUntil };
  }

  listDeliveries(request: WebhookRef & { status?: DeliveryPage['deliveries'][number]['status'] | undefined; limit: number; cursor?: string | undefined }): DeliveryPage {
    this.owned(request);
    const before = request.cursor === undefined ? null : decodeCursor(request.cursor);
    if (request.cursor !== undefined && before === null) throw new ApiError('VALIDATION_ERROR', 'cursor must be a nextCursor value', [{ path: 'query.cursor', message: 'cursor must be a nextCursor value' }]);
    return this.d.deliveries.page(request.webhookId, request.status, request.limit, before);
  }

  /** Past events of the window, re-queued under their own ids (oldest first, per session in order). */
  replay(ref: WebhookRef, body: ReplayBody): ReplayResult {
    const webhook = this.owned(ref);
    const types = (body.types ?? webhook.events).filter((t) => (webhook.events as string[]).includes(t));
    const until = body.until ?? new Date().toISOString();
    const rows = types.length === 0 ? [] : this.d.feed.window(ref.accountId, body.since, until, types);
    const now = Date.now();
    for (const row of rows) this.d.deliveries.enqueue(ref.webhookId, ref.accountId, row.event, row.sessionKey, now);
    this.d.kick(ref.webhookId);
    return { queued: rows.length };
  }

  /** A `webhook.test` event to this webhook only (never recorded in the account's feed). */
  test(ref: WebhookRef): TestResult {
    this.owned(ref);
    const id = `evt_${ulid()}`;
    const event = { id, type: 'webhook.test' as const, timestamp: this.clock().toISOString(), data: { webhookId: ref.webhookId } };
    this.d.deliveries.enqueue(ref.webhookId, ref.accountId, event, `test:${id}`, Date.now());
    this.d.kick(ref.webhookId);
    return { eventId: id };
  }

  readStream(request: ReadEventStreamRequest): EventStreamPage {
    return readStreamPage(this.d.feed, request);
  }

  private async create(accountId: string, body: CreateWebhookBody): Promise<CreatedWebhook> {
    const webhookId = `wh_${ulid()}`;
    const secret = mintWebhookSecret();
    const secretFingerprint = this.d.secrets.put(webhookId, secret);
    const command: WebhookCommand = {
      type: 'CreateWebhook', webhookId, accountId, url: body.url, events: body.events ?? [...SUBSCRIBABLE_EVENT_TYPES],
      description: body.description ?? null, secretFingerprint, existing: this.d.webhooks.list(accountId).length, now: this.clock(),
    };
    await this.execute(webhookId, command);
    return { ...viewOf(this.owned({ accountId, webhookId })), secret };
  }

  /** The handler loop, then wait until the webhook list shows the change (a GET right after sees it). */
  private async execute(webhookId: string, command: WebhookCommand) {
    const metadata = eventMetadata({ accountId: command.accountId, now: command.now });
    const result = await executeCommand(this.d.store, webhookStream(webhookId), webhookFold, (state) => decide(command, state), metadata);
    if (result.position !== undefined) await this.d.runner.waitForPosition(result.position);
    return result;
  }

  private owned(ref: WebhookRef): WebhookRecord {
    const webhook = this.d.webhooks.get(ref.webhookId);
    if (!webhook || webhook.deleted || webhook.accountId !== ref.accountId) throw new WebhookNotFound();
    return webhook;
  }

  /** Resolved and checked now, before any connection: private, loopback, link-local, metadata refused. */
  private async checkUrl(url: string): Promise<void> {
    const checked = await checkedAddress(new URL(url), this.d.allowLoopback, this.d.resolver);
    if (checked === 'forbidden') throw new ApiError('WEBHOOK_URL_FORBIDDEN');
    if (checked === 'unresolvable') throw new ApiError('WEBHOOK_URL_FORBIDDEN', 'The webhook URL\'s host name does not resolve.');
  }

  private clock(): Date {
    return this.d.now?.() ?? new Date();
  }
}
