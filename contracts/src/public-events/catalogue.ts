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
  .meta({ example: 'evt_01JD8Z7A1B2C3D4E5F6G7H8J9K' });
export type PublicEventId = z.infer<typeof PublicEventId>;

/** Why a session changed status (`reason` of `session.status`). */
export const SessionStatusReason = z.enum([
  'created', 'paired', 'reconnected', 'logged_out', 'qr_timeout', 'connection_lost', 'replaced', 'deleted', 'failed',
]);
export type SessionStatusReason = z.infer<typeof SessionStatusReason>;

export const SessionStatusData = z.object({
  sessionId: SessionId,
  status: SessionStatus,
  previousStatus: SessionStatus.nullable(),
  reason: SessionStatusReason,
});
export const SessionQrData = z.object({ sessionId: SessionId, qrCode: QrCodeDataUrl, expiresAt: IsoTimestamp });
export const MessageStatusData = z.object({
  messageId: MessageId,
  sessionId: SessionId,
  status: z.enum(['sent', 'delivered', 'read', 'failed']),
  timestamp: IsoTimestamp,
  error: MessageFailure.nullable(),
});
/** `messageId`: the message reacted to (ours as `msg_…`); an empty `emoji` removes the reaction. */
export const MessageReactionData = z.object({
  messageId: z.string().min(1).max(256),
  sessionId: SessionId,
  from: Phone,
  emoji: z.string().max(32),
});
export const WebhookTestData = z.object({ webhookId: z.string().min(1).max(64) });

const event = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({ id: PublicEventId, type: z.literal(type), timestamp: IsoTimestamp, data });

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
