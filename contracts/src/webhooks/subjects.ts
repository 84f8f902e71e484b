import { z } from 'zod';
import { IdempotencyRef } from '../common/idempotency.js';
import { AccountId, SessionId, WebhookId } from '../common/ids.js';
import { IsoTimestamp } from '../common/time.js';
import { defineSubject } from '../bus/subject.js';
import { PublicEventId, SubscribableEventType } from '../public-events/catalogue.js';
import {
  CreatedWebhook,
  CreateWebhookBody,
  DeliveryPage,
  DeliveryStatus,
  EventStreamPage,
  ReplayBody,
  ReplayResult,
  RotatedWebhookSecret,
  TestResult,
  UpdateWebhookBody,
  WebhookList,
  WebhookView,
} from './http.js';

const account = { accountId: AccountId };
const ref = { accountId: AccountId, webhookId: WebhookId };

export const WebhookRef = z.object(ref);
export type WebhookRef = z.infer<typeof WebhookRef>;

/**
 * Reads an account's recorded public events for the live stream: after an event id
 * (`Last-Event-ID`) or an opaque `cursor` from an earlier page; with neither, an empty page whose
 * cursor is "now".
 */
export const ReadEventStreamRequest = z.object({
  ...account,
  after: PublicEventId.optional(),
  cursor: z.string().regex(/^[0-9]{1,20}$/).optional(),
  types: z.array(SubscribableEventType).optional(),
  sessionId: SessionId.optional(),
  limit: z.number().int().min(1).max(1000).default(200),
});
export type ReadEventStreamRequest = z.infer<typeof ReadEventStreamRequest>;

/** A webhook create, with the Idempotency-Key's hashes when the client sent one. */
export const CreateWebhookCommand = z.object({ ...account, body: CreateWebhookBody, idempotency: IdempotencyRef.optional() });
export type CreateWebhookCommand = z.infer<typeof CreateWebhookCommand>;

/** Reply of sb.v1.events.createWebhook: the HTTP result, and `replayed` when a repeated Idempotency-Key found it. */
export const CreateWebhookReply = CreatedWebhook.extend({ replayed: z.boolean().optional() });
export type CreateWebhookReply = z.infer<typeof CreateWebhookReply>;

/** Request/reply subjects of the events service (queue group `events`). */
export const EventsSubjects = {
  createWebhook: defineSubject('sb.v1.events.createWebhook', CreateWebhookCommand, CreateWebhookReply),
  listWebhooks: defineSubject('sb.v1.events.listWebhooks', z.object(account), WebhookList),
  getWebhook: defineSubject('sb.v1.events.getWebhook', WebhookRef, WebhookView),
  updateWebhook: defineSubject('sb.v1.events.updateWebhook', z.object({ ...ref, body: UpdateWebhookBody }), WebhookView),
  deleteWebhook: defineSubject('sb.v1.events.deleteWebhook', WebhookRef, z.object({ deleted: z.literal(true) })),
  rotateSecret: defineSubject('sb.v1.events.rotateSecret', WebhookRef, RotatedWebhookSecret),
  listDeliveries: defineSubject(
    'sb.v1.events.listDeliveries',
    z.object({ ...ref, status: DeliveryStatus.optional(), limit: z.number().int().min(1).max(200), cursor: z.string().optional() }),
    DeliveryPage,
  ),
  replay: defineSubject('sb.v1.events.replay', z.object({ ...ref, body: ReplayBody }), ReplayResult),
  test: defineSubject('sb.v1.events.test', WebhookRef, TestResult),
  readStream: defineSubject('sb.v1.events.readStream', ReadEventStreamRequest, EventStreamPage),
  /**
   * Crypto-shredding (issue 16): the contents in the account's recorded public events and webhook
   * deliveries of messages received up to `erasedAt` are replaced by `[erased]`; idempotent.
   */
  eraseContents: defineSubject(
    'sb.v1.events.eraseContents',
    z.object({ ...account, erasedAt: IsoTimestamp }),
    z.object({ eventsErased: z.number().int().min(0), deliveriesErased: z.number().int().min(0) }),
  ),
} as const;
