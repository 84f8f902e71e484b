import { z } from 'zod';
import { MessageId, SessionId } from '../common/ids.js';
import { Phone } from '../common/phone.js';
import { IsoTimestamp } from '../common/time.js';
import { MessageFailure } from '../messages/http.js';
import { HistoryItem } from '../messages/history.js';
import { QrCodeDataUrl, SessionStatus } from '../sessions/status.js';

// The events clients hear (issue 11): one catalogue for webhooks and the live stream
// (GET /v1/events). Each is `{id, type, timestamp, data}` with `data.sessionId` (but webhook.test).
// An event's `id` is derived from the fact it reports, so it is the same across retries, replays
// and the stream. Internal domain events (contracts/src/*/events.ts) are not this catalogue:
// each source service maps its own facts to these.

/** `evt_` + 26 characters of Crockford base32: opaque, stable per fact. */
export const PublicEventId = z
  .string()
  .regex(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/, 'must be an event id: "evt_" followed by 26 characters')
  .meta({ description: 'The event\'s id: the same for a fact across retries, replays and the stream (deduplicate on it).', example: 'evt_01JD8Z7A1B2C3D4E5F6G7H8J9K' });
export type PublicEventId = z.infer<typeof PublicEventId>;

/** Why a session changed status (`reason` of `session.status`). */
export const SessionStatusReason = z.enum([
  'created', 'paired', 'reconnected', 'logged_out', 'qr_timeout', 'connection_lost', 'replaced', 'deleted', 'failed',
]).meta({ description: 'Why the session changed status.', example: 'paired' });
export type SessionStatusReason = z.infer<typeof SessionStatusReason>;

export const SessionStatusData = z.object({
  sessionId: SessionId,
  status: SessionStatus,
  previousStatus: SessionStatus.nullable().meta({ description: 'The status before, or null for a new session.', example: 'pending' }),
  reason: SessionStatusReason,
});
export const SessionQrData = z.object({
  sessionId: SessionId,
  qrCode: QrCodeDataUrl,
  expiresAt: IsoTimestamp.meta({ description: 'When this code rotates.', example: '2026-11-21T10:16:30.000Z' }),
});
export const MessageStatusData = z.object({
  messageId: MessageId,
  sessionId: SessionId,
  status: z.enum(['sent', 'delivered', 'read', 'failed']).meta({ description: 'The message\'s new status.', example: 'delivered' }),
  timestamp: IsoTimestamp.meta({ description: 'When it reached this status.', example: '2026-11-21T10:15:31.000Z' }),
  error: MessageFailure.nullable().meta({ description: 'Why it failed (`failed` only), else null.', example: null }),
});
/** `messageId`: the message reacted to (ours as `msg_…`); an empty `emoji` removes the reaction. */
export const MessageReactionData = z.object({
  messageId: z.string().min(1).max(256).meta({ description: 'The message reacted to (ours as `msg_…`).', example: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K' }),
  sessionId: SessionId,
  from: Phone.meta({ description: 'Who reacted.', example: '15551234567' }),
  emoji: z.string().max(32).meta({ description: 'The reaction; empty when it was removed.', example: '👍' }),
});
export const WebhookTestData = z.object({ webhookId: z.string().min(1).max(64).meta({ description: 'The webhook tested.', example: 'wh_01JD8Z9C2D3E4F5G6H7J8K9M0N' }) });

const event = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({
    id: PublicEventId,
    type: z.literal(type).meta({ description: 'The event type.', example: type }),
    timestamp: IsoTimestamp.meta({ description: 'When the fact happened.', example: '2026-11-21T10:15:31.000Z' }),
    data: data.meta({ description: 'The fact, by type.' }),
  });

export const PUBLIC_EVENTS = [
  event('session.status', SessionStatusData),
  event('session.qr', SessionQrData),
  event('message.status', MessageStatusData),
  event('message.received', HistoryItem),
  event('message.reaction', MessageReactionData),
  event('webhook.test', WebhookTestData),
] as const;

/** One event of the catalogue. */
export const PublicEvent = z.discriminatedUnion('type', [...PUBLIC_EVENTS]);
export type PublicEvent = z.infer<typeof PublicEvent>;
export type PublicEventType = PublicEvent['type'];

/** The types a webhook or a stream can ask for (`webhook.test` is sent only on request). */
export const SUBSCRIBABLE_EVENT_TYPES = ['session.status', 'session.qr', 'message.status', 'message.received', 'message.reaction'] as const;
export const SubscribableEventType = z.enum(SUBSCRIBABLE_EVENT_TYPES);
export type SubscribableEventType = z.infer<typeof SubscribableEventType>;
