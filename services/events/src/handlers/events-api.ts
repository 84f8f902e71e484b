import { ApiError, SUBSCRIBABLE_EVENT_TYPES, WEBHOOK_SECRET_OVERLAP_MS, webhookStream } from '@switchboard/contracts';
import type {
  CreatedWebhook,
  CreateWebhookBody,
  CreateWebhookCommand,
  CreateWebhookReply,
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
  WebhookKeyEvent,
  WebhookView,
} from '@switchboard/contracts';
import type { EventStore } from '@switchboard/eventstore';
import type { Resolver } from '@switchboard/net-policy';
import { checkedAddress } from '@switchboard/net-policy';
import { eventMetadata, executeCommand, loadAggregate, ulid } from '@switchboard/service-kit';
import type { ClaimDecision, IdempotencyKeys, ProjectionRunner } from '@switchboard/service-kit';
import type { Logger } from '@switchboard/telemetry';
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
import type { Webhook } from '../webhook/state.js';
import { viewOf } from '../webhook/projection.js';
import type { WebhookQueries, WebhookRecord } from '../webhook/projection.js';

export interface EventsApiDeps {
  store: EventStore;
  runner: ProjectionRunner;
  /** Idempotency-Key claims of webhook creates, in `store`. */
  keys: IdempotencyKeys<WebhookKeyEvent>;
  logger: Logger;
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
  /** The webhook's URL changed or it was deleted: its kept-alive connections go. */
  retire(webhookId: string): void;
  now?: () => Date;
}

/**
 * Longer than a create takes from its claim to `WebhookCreated` in the read model (a DNS lookup of
 * the URL, bounded, and one append): a claim this old whose webhook is still unrecorded lost its process.
 */
const RECORDING_GRACE_MS = 30_000;
/** Events a replay reads and queues at once (about 0.5-1 MB of bodies). */
const REPLAY_PAGE = 1_000;

/** Everything the events service answers on the bus, one method per subject (requests parsed). */
export class EventsApi {
  /** Creates of one account run one after the other, so two at once cannot pass the limit. */
  private readonly creating = new Map<string, Promise<unknown>>();
  /** Creates running in this process, by webhook id: a retry with their key arriving meanwhile shares the answer. */
  private readonly inFlight = new Map<string, Promise<CreatedWebhook>>();

  constructor(private readonly d: EventsApiDeps) {}

  readiness(): ReadyReply {
    return this.d.readiness();
  }

  /** `sb.v1.events.eraseContents`: the account's recorded message contents up to `erasedAt` read `[erased]`. */
  eraseContents(request: { accountId: string; erasedAt: string }): { eventsErased: number; deliveriesErased: number } {
    return this.d.erasures.erase(request.accountId, request.erasedAt);
  }

  /**
   * POST /v1/webhooks. With an Idempotency-Key, the key is claimed for a fresh webhook id before
   * anything else, so a retried create (after a 504, say) answers for the first webhook, its secret
   * included, instead of making a second one that every event would go to twice.
   */
  async createWebhook(command: CreateWebhookCommand): Promise<CreateWebhookReply> {
    const { accountId, body, idempotency } = command;
    if (!idempotency) return this.createOnce(accountId, body, newWebhookId());
    const claim = await this.d.keys.claim(accountId, idempotency, newWebhookId());
    if (claim.kind === 'claim') return this.createClaimed(accountId, body, idempotency.keyHash, claim.resourceId);
    return { ...(await this.answerAgain(accountId, body, idempotency.keyHash, claim)), replayed: true };
  }

  listWebhooks(accountId: string): WebhookList {
    return { webhooks: this.d.webhooks.list(accountId).map(viewOf) };
  }

  getWebhook(ref: WebhookRef): WebhookView {
    return viewOf(this.owned(ref));
  }

  async updateWebhook(ref: WebhookRef, body: UpdateWebhookBody): Promise<WebhookView> {
    const before = this.owned(ref).url;
    if (body.url !== undefined) await this.checkUrl(body.url);
    await this.execute(ref.webhookId, { type: 'UpdateWebhook', accountId: ref.accountId, changes: body, now: this.clock() });
    if (body.url !== undefined && body.url !== before) this.d.retire(ref.webhookId);
    // Enabled again: what waited meanwhile goes out now, not at the dispatcher's next look.
    if (body.enabled === true) this.d.kick(ref.webhookId);
    return viewOf(this.owned(ref));
  }

  async deleteWebhook(ref: WebhookRef): Promise<{ deleted: true }> {
    await this.execute(ref.webhookId, { type: 'DeleteWebhook', accountId: ref.accountId, now: this.clock() });
    this.d.deliveries.failPending(ref.webhookId, 'webhook_deleted', Date.now());
    this.d.retire(ref.webhookId);
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

  /**
   * Past events of the window, re-queued under their own ids (oldest first among themselves, per
   * session in order), as the feed was when the replay began. A page at a time, each in one
   * transaction, the event loop free in between: a window of millions of events never sits in
   * memory whole, and the first pages go out while the rest are queued. Live events recorded
   * meanwhile are queued as they come, between pages (a replay never kept its events ahead of live
   * ones already queued either: it re-sends the past, it does not reorder it).
   */
  async replay(ref: WebhookRef, body: ReplayBody): Promise<ReplayResult> {
    const webhook = this.owned(ref);
    const types = (body.types ?? webhook.events).filter((t) => (webhook.events as string[]).includes(t));
    const until = body.until ?? new Date().toISOString();
    if (types.length === 0) return { queued: 0 };
    let queued = 0;
    const page = { afterSeq: 0, untilSeq: this.d.feed.head(), limit: REPLAY_PAGE };
    for (;;) {
      const rows = this.d.feed.window(ref.accountId, body.since, until, types, page);
      this.d.deliveries.enqueueAll(ref.webhookId, ref.accountId, rows, Date.now());
      queued += rows.length;
      if (rows.length > 0) this.d.kick(ref.webhookId);
      if (rows.length < page.limit) return { queued };
      page.afterSeq = rows[rows.length - 1]!.seq;
      await new Promise((resolve) => setImmediate(resolve));
    }
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

  /**
   * The webhook a key holds, as its stream has it now (a rotated secret is the current one; the
   * read model may lag, or be another replica's); recorded now if its first create died.
   */
  private async answerAgain(accountId: string, body: CreateWebhookBody, keyHash: string, claim: Extract<ClaimDecision, { kind: 'replay' }>): Promise<CreatedWebhook> {
    const running = this.inFlight.get(claim.resourceId);
    if (running) return running;
    const { state } = await loadAggregate(this.d.store, webhookStream(claim.resourceId), webhookFold);
    if (state.status !== 'absent') return this.createdAnswer(accountId, state);
    if (this.clock().getTime() - Date.parse(claim.claimedAt) < RECORDING_GRACE_MS) {
      throw new ApiError('SERVICE_UNAVAILABLE', 'The webhook for this Idempotency-Key is still being created; retry shortly.');
    }
    // Claimed, never recorded, not running here: its process stopped in between. The webhook is
    // created under the bound id (once: its stream is new only once).
    return this.createClaimed(accountId, body, keyHash, claim.resourceId);
  }

  /** What a create answers for a webhook of its stream: 404 once deleted (or another account's). */
  private createdAnswer(accountId: string, state: Webhook): CreatedWebhook {
    if (state.status !== 'active' || state.accountId !== accountId) throw new WebhookNotFound();
    const secret = this.d.secrets.get(state.webhookId, state.secretFingerprint);
    if (secret === undefined) throw new Error(`no sealed secret for webhook ${state.webhookId}`);
    const { webhookId, url, events, description, enabled, createdAt } = state;
    return { webhookId, url, events, description, enabled, createdAt, secret };
  }

  /**
   * A create its key was claimed for. A failure before the webhook was recorded frees the key (the
   * client got an error, not a webhook); one after it (the read model not caught up) keeps it, so
   * the retry answers for the webhook instead of making a second.
   */
  private async createClaimed(accountId: string, body: CreateWebhookBody, keyHash: string, webhookId: string): Promise<CreatedWebhook> {
    try {
      return await this.createOnce(accountId, body, webhookId);
    } catch (error) {
      const recorded = await loadAggregate(this.d.store, webhookStream(webhookId), webhookFold).then(({ state }) => state.status !== 'absent', () => true);
      if (recorded) throw error;
      const code = error instanceof ApiError ? error.code : 'INTERNAL_ERROR';
      await this.d.keys.release(accountId, keyHash, webhookId, code).catch((releaseError: unknown) => {
        this.d.logger.error({ err: releaseError, webhookId }, 'could not free the Idempotency-Key of a failed webhook create');
      });
      throw error;
    }
  }

  /**
   * The create, after the account's creates before it (the limit counts them) have settled; its URL
   * is checked meanwhile. A create that fails settles in its turn, never before the ones ahead of it.
   */
  private createOnce(accountId: string, body: CreateWebhookBody, webhookId: string): Promise<CreatedWebhook> {
    const previous = this.creating.get(accountId) ?? Promise.resolve();
    const checked = this.checkUrl(body.url);
    // Its failure is taken in the create's turn (below); meanwhile it is not an unhandled one.
    checked.catch(() => undefined);
    const run = previous.catch(() => undefined).then(() => checked).then(() => this.create(accountId, body, webhookId));
    this.creating.set(accountId, run);
    this.inFlight.set(webhookId, run);
    const done = () => {
      if (this.creating.get(accountId) === run) this.creating.delete(accountId);
      this.inFlight.delete(webhookId);
    };
    run.then(done, done);
    return run;
  }

  private async create(accountId: string, body: CreateWebhookBody, webhookId: string): Promise<CreatedWebhook> {
    const secret = mintWebhookSecret();
    const secretFingerprint = this.d.secrets.put(webhookId, secret);
    const command: WebhookCommand = {
      type: 'CreateWebhook', webhookId, accountId, url: body.url, events: body.events ?? [...SUBSCRIBABLE_EVENT_TYPES],
      description: body.description ?? null, secretFingerprint, existing: this.d.webhooks.list(accountId).length, now: this.clock(),
    };
    const { events, state } = await this.execute(webhookId, command);
    // Recorded before (a create recovered twice at once): answered with the secret stored then.
    if (events.length === 0) return this.createdAnswer(accountId, state);
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

const newWebhookId = (): string => `wh_${ulid()}`;
