import { z } from 'zod';
import { successEnvelope } from '../common/envelope.js';
import { SessionId } from '../common/ids.js';
import { Phone } from '../common/phone.js';
import { queryInteger } from '../common/query.js';
import type { EndpointContract } from '../common/routes.js';
import { IsoTimestamp } from '../common/time.js';
import { HistoryItem, MessageDirection } from './history.js';
import { MESSAGE_SEND_ENDPOINTS, MessageIdParams, MessageStatusView } from './http.js';

// The conversation history endpoints (issue 11) and the message lookup that answers both ways.

export const HISTORY_LIMIT_DEFAULT = 50;
export const HISTORY_LIMIT_MAX = 200;

/** An opaque position in the history (`nextCursor` of the page before). */
export const HistoryCursor = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be a cursor returned by an earlier page')
  .meta({ description: 'Where the next page starts: the `nextCursor` of the page before.', example: 'MTczMjE4NDkzMDAwMA' });

/**
 * GET /v1/messages query. Unlike the session list, unknown parameters are refused: a misspelt
 * filter (`directon=in`) would otherwise silently widen what a client reads.
 */
export const ListMessagesQuery = z
  .object({
    sessionId: SessionId.optional().meta({ description: 'Only this session\'s messages.', example: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R' }),
    direction: MessageDirection.optional().meta({ description: 'Only received (`in`) or sent (`out`) messages.', example: 'in' }),
    /** The other party: the recipient of an outbound message, the sender of an inbound one. */
    contact: Phone.optional().meta({ description: 'Only messages with this contact (the recipient of an outbound message, the sender of an inbound one).', example: '15551234567' }),
    /** Messages at or after this time. */
    since: IsoTimestamp.optional().meta({ description: 'Messages at or after this time.', example: '2026-11-21T00:00:00.000Z' }),
    /** Messages before this time. */
    until: IsoTimestamp.optional().meta({ description: 'Messages before this time.', example: '2026-11-22T00:00:00.000Z' }),
    limit: queryInteger('limit', 1)
      .refine((n) => n <= HISTORY_LIMIT_MAX, `limit must be at most ${HISTORY_LIMIT_MAX}`)
      .optional()
      .meta({ description: `Whole number 1–${HISTORY_LIMIT_MAX}, default ${HISTORY_LIMIT_DEFAULT}.`, example: HISTORY_LIMIT_DEFAULT })
      .transform((n) => n ?? HISTORY_LIMIT_DEFAULT),
    cursor: HistoryCursor.optional(),
  })
  .strict();
export type ListMessagesQuery = z.infer<typeof ListMessagesQuery>;

/** `data` of GET /v1/messages: newest first; `nextCursor` null on the last page. */
export const ListMessagesResult = z.object({
  messages: z.array(HistoryItem).meta({ description: 'The page of messages, newest first.' }),
  nextCursor: HistoryCursor.nullable().meta({ description: 'The cursor of the next page; null on the last.', example: null }),
});
export type ListMessagesResult = z.infer<typeof ListMessagesResult>;
export const ListMessagesResponse = successEnvelope(ListMessagesResult);

/**
 * `data` of GET /v1/messages/{id}: an outbound message keeps the status lookup's shape (with
 * `direction: "out"`), an inbound one is its history item.
 */
export const MessageLookupView = z.union([
  MessageStatusView.extend({ direction: z.literal('out').meta({ description: 'Sent through the API.', example: 'out' }) }),
  HistoryItem.extend({ direction: z.literal('in').meta({ description: 'Received from a contact.', example: 'in' }) }),
]);
export type MessageLookupView = z.infer<typeof MessageLookupView>;
export const GetMessageResponse = successEnvelope(MessageLookupView);
export type GetMessageResponse = z.infer<typeof GetMessageResponse>;

/** The bytes of a media message, with their Content-Type (not JSON). */
export const MessageMediaBytes = z.any().refine((v) => v instanceof Uint8Array, 'must be bytes').meta({ description: 'The media bytes, served with their own Content-Type.' });

/** Method, path, and the schemas of each message endpoint, for routing and OpenAPI. */
export const MESSAGE_ENDPOINTS = {
  ...MESSAGE_SEND_ENDPOINTS,
  list: { method: 'GET', path: '/v1/messages', status: 200, query: ListMessagesQuery, response: ListMessagesResponse },
  get: { method: 'GET', path: '/v1/messages/:messageId', status: 200, params: MessageIdParams, response: GetMessageResponse },
  media: { method: 'GET', path: '/v1/messages/:messageId/media', status: 200, params: MessageIdParams, response: MessageMediaBytes },
} as const satisfies Record<string, EndpointContract>;
