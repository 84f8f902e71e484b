import { z } from 'zod';
import type { EndpointContract } from '../common/routes.js';
import { MessageResponse, successEnvelope } from '../common/envelope.js';
import { SessionId, WebhookId } from '../common/ids.js';
import { queryInteger } from '../common/query.js';
import { IsoTimestamp } from '../common/time.js';
import { PublicEvent, PublicEventId, SubscribableEventType, SUBSCRIBABLE_EVENT_TYPES } from '../public-events/catalogue.js';

// Webhooks (issue 11): per account, Standard Webhooks signatures, at most 10 per account.

export const MAX_WEBHOOKS_PER_ACCOUNT = 10;
/** After a rotation the previous secret signs too, for this long. */
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** Where events are POSTed: http(s) only; the address it resolves to is checked by the service. */
export const WebhookUrl = z
  .url({ protocol: /^https?$/, error: 'url must be an http or https URL' })
  .max(2048, 'url must be at most 2048 characters')
  .meta({
    description: 'Where events are POSTed: http or https; addresses that resolve to private, loopback or link-local networks are refused.',
    example: 'https://example.com/switchboard/events',
  });

/** The types a webhook receives; all of them when omitted. No duplicates, no unknown names. */
export const WebhookEventTypes = z
  .array(SubscribableEventType)
  .min(1, 'events must name at least one event type')
  .refine((types) => new Set(types).size === types.length, 'events must not repeat a type')
  .meta({ description: 'The event types it receives; every type but `webhook.test` when omitted.', example: ['message.status', 'message.received'] });
export const WebhookDescription = z
  .string()
  .max(500, 'description must be at most 500 characters')
  .meta({ description: 'A note for people, at most 500 characters.', example: 'CRM sync' });

/** `whsec_` + base64 of 32 random bytes: the Standard Webhooks secret format. */
export const WebhookSecret = z.string().regex(/^whsec_[A-Za-z0-9+/]{43}=$/).meta({
  description: 'The signing secret (Standard Webhooks), shown only in this answer.',
  example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw9G7c2p8PWEU=',
});

const WebhookEnabled = z.boolean().meta({ description: 'Whether deliveries go out; a disabled webhook keeps them pending.', example: true });

/** POST /v1/webhooks */
export const CreateWebhookBody = z
  .object({ url: WebhookUrl, events: WebhookEventTypes.optional(), description: WebhookDescription.optional() })
  .strict();
export type CreateWebhookBody = z.infer<typeof CreateWebhookBody>;

/** PATCH /v1/webhooks/{webhookId}: any of the settings; at least one. */
export const UpdateWebhookBody = z
  .object({ url: WebhookUrl.optional(), events: WebhookEventTypes.optional(), description: WebhookDescription.nullable().optional().meta({ description: 'A note for people (null clears it).', example: 'CRM sync' }), enabled: WebhookEnabled.optional() })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'name at least one of url, events, description, enabled');
export type UpdateWebhookBody = z.infer<typeof UpdateWebhookBody>;

export const WebhookView = z.object({
  webhookId: WebhookId,
  url: z.string().meta({ description: 'Where events are POSTed.', example: 'https://example.com/switchboard/events' }),
  events: z.array(SubscribableEventType).meta({ description: 'The event types it receives.', example: ['message.status', 'message.received'] }),
  description: z.string().nullable().meta({ description: 'The note given, or null.', example: 'CRM sync' }),
  enabled: WebhookEnabled,
  createdAt: IsoTimestamp.meta({ description: 'When it was registered.', example: '2026-11-21T10:15:30.000Z' }),
});
export type WebhookView = z.infer<typeof WebhookView>;

/** The create reply: the only time the secret is shown. */
export const CreatedWebhook = WebhookView.extend({ secret: WebhookSecret });
export type CreatedWebhook = z.infer<typeof CreatedWebhook>;

/** POST /v1/webhooks/{webhookId}/secret: the new secret, and until when the old one still signs. */
export const RotatedWebhookSecret = z.object({ webhookId: WebhookId, secret: WebhookSecret, previousSecretValidUntil: IsoTimestamp.meta({ description: 'Until when the previous secret still signs.', example: '2026-11-22T10:15:30.000Z' }) });
export type RotatedWebhookSecret = z.infer<typeof RotatedWebhookSecret>;

export const WebhookList = z.object({ webhooks: z.array(WebhookView).meta({ description: 'The account\'s webhooks.' }) });
export type WebhookList = z.infer<typeof WebhookList>;

export const DeliveryStatus = z.enum(['pending', 'succeeded', 'failed']).meta({ description: 'Where the delivery stands.', example: 'succeeded' });
export type DeliveryStatus = z.infer<typeof DeliveryStatus>;

/** One event on its way to one webhook: every attempt counts, the last one's outcome is kept. */
export const DeliveryView = z.object({
  deliveryId: z.string().meta({ description: 'The delivery\'s id.', example: 'dlv_01JD8Z9C2D3E4F5G6H7J8K9M0N' }),
  eventId: PublicEventId,
  eventType: z.string().meta({ description: 'The event\'s type.', example: 'message.status' }),
  status: DeliveryStatus,
  attempts: z.number().int().min(0).meta({ description: 'Attempts made so far.', example: 1 }),
  lastStatusCode: z.number().int().nullable().meta({ description: 'The HTTP status of the last attempt, or null (none yet, or no answer).', example: 200 }),
  lastError: z.string().nullable().meta({ description: 'Why the last attempt failed, or null.', example: null }),
  lastAttemptAt: IsoTimestamp.nullable().meta({ description: 'When the last attempt was made, or null.', example: '2026-11-21T10:15:31.000Z' }),
  nextAttemptAt: IsoTimestamp.nullable().meta({ description: 'When the next attempt is due, or null (none is).', example: null }),
  createdAt: IsoTimestamp.meta({ description: 'When the event was queued for this webhook.', example: '2026-11-21T10:15:30.000Z' }),
});
export type DeliveryView = z.infer<typeof DeliveryView>;

export const DELIVERIES_LIMIT_DEFAULT = 50;
export const DELIVERIES_LIMIT_MAX = 200;

/** An opaque page cursor (from `nextCursor`). */
export const PageCursor = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'cursor must be a nextCursor value')
  .meta({ description: 'Where the next page starts: the `nextCursor` of the page before.', example: 'MTczMjE4NDkzMDAwMA' });

export const ListDeliveriesQuery = z.object({
  status: DeliveryStatus.optional().meta({ description: 'Only deliveries in this status.', example: 'failed' }),
  limit: queryInteger('limit', 1)
    .optional()
    .meta({ description: `Whole number of at least 1, default ${DELIVERIES_LIMIT_DEFAULT}; values above ${DELIVERIES_LIMIT_MAX} are treated as ${DELIVERIES_LIMIT_MAX}.`, example: DELIVERIES_LIMIT_DEFAULT })
    .transform((n) => Math.min(n ?? DELIVERIES_LIMIT_DEFAULT, DELIVERIES_LIMIT_MAX)),
  cursor: PageCursor.optional(),
});
export type ListDeliveriesQuery = z.infer<typeof ListDeliveriesQuery>;

/** Newest first; `nextCursor` null on the last page. */
export const DeliveryPage = z.object({
  deliveries: z.array(DeliveryView).meta({ description: 'The page of deliveries, newest first.' }),
  nextCursor: PageCursor.nullable().meta({ description: 'The cursor of the next page; null on the last.', example: null }),
});
export type DeliveryPage = z.infer<typeof DeliveryPage>;

/** POST /v1/webhooks/{webhookId}/replay: past events of the window, re-sent under their own ids. */
export const ReplayBody = z
  .object({
    since: IsoTimestamp.meta({ description: 'Events at or after this time.', example: '2026-11-21T00:00:00.000Z' }),
    until: IsoTimestamp.optional().meta({ description: 'Events before this time; default now.', example: '2026-11-22T00:00:00.000Z' }),
    types: WebhookEventTypes.optional().meta({ description: 'Only these types (of those the webhook takes).', example: ['message.received'] }),
  })
  .strict()
  .refine((b) => b.until === undefined || Date.parse(b.until) >= Date.parse(b.since), { path: ['until'], message: 'until must not be before since' });
export type ReplayBody = z.infer<typeof ReplayBody>;

export const ReplayResult = z.object({ queued: z.number().int().min(0).meta({ description: 'How many events were queued again.', example: 12 }) });
export type ReplayResult = z.infer<typeof ReplayResult>;

export const TestResult = z.object({ eventId: PublicEventId });
export type TestResult = z.infer<typeof TestResult>;

export const WebhookIdParams = z.object({ webhookId: WebhookId });

/** `?types=a,b` of GET /v1/events: a comma-separated list of catalogue types. */
const TypesList = z
  .string()
  .transform((value) => value.split(',').map((t) => t.trim()).filter((t) => t !== ''))
  .pipe(z.array(SubscribableEventType, { error: `types must be a comma-separated list of ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}` }))
  .meta({ description: `Only these event types, comma-separated (${SUBSCRIBABLE_EVENT_TYPES.join(', ')}); default all.`, example: 'message.status,message.received' });

/** GET /v1/events (text/event-stream): optional filters. */
export const EventStreamQuery = z.object({
  types: TypesList.optional(),
  sessionId: SessionId.optional().meta({ description: 'Only the events of this session; default all sessions of the account.' }),
});
export type EventStreamQuery = z.infer<typeof EventStreamQuery>;

export const WEBHOOK_ENDPOINTS = {
  create: { method: 'POST', path: '/v1/webhooks', status: 201, body: CreateWebhookBody, response: successEnvelope(CreatedWebhook) },
  list: { method: 'GET', path: '/v1/webhooks', status: 200, response: successEnvelope(WebhookList) },
  get: { method: 'GET', path: '/v1/webhooks/:webhookId', status: 200, params: WebhookIdParams, response: successEnvelope(WebhookView) },
  update: { method: 'PATCH', path: '/v1/webhooks/:webhookId', status: 200, params: WebhookIdParams, body: UpdateWebhookBody, response: successEnvelope(WebhookView) },
  delete: { method: 'DELETE', path: '/v1/webhooks/:webhookId', status: 200, params: WebhookIdParams, response: MessageResponse },
  rotateSecret: { method: 'POST', path: '/v1/webhooks/:webhookId/secret', status: 200, params: WebhookIdParams, response: successEnvelope(RotatedWebhookSecret) },
  deliveries: { method: 'GET', path: '/v1/webhooks/:webhookId/deliveries', status: 200, params: WebhookIdParams, query: ListDeliveriesQuery, response: successEnvelope(DeliveryPage) },
  replay: { method: 'POST', path: '/v1/webhooks/:webhookId/replay', status: 200, params: WebhookIdParams, body: ReplayBody, response: successEnvelope(ReplayResult) },
  test: { method: 'POST', path: '/v1/webhooks/:webhookId/test', status: 200, params: WebhookIdParams, response: successEnvelope(TestResult) },
} as const satisfies Record<string, EndpointContract>;

/** A page of the live stream's events for one account (what GET /v1/events writes as frames). */
export const EventStreamPage = z.object({ events: z.array(PublicEvent), cursor: z.string() });
export type EventStreamPage = z.infer<typeof EventStreamPage>;

/** The release webhooks are sent by (`user-agent: Switchboard-Webhooks/<version>`). */
export const SWITCHBOARD_VERSION = '0.1.0';
export const WEBHOOK_USER_AGENT = `Switchboard-Webhooks/${SWITCHBOARD_VERSION}`;
/** How long one delivery attempt may take before it counts as failed. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
