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
export const HistoryCursor = z.string().regex(/^[A-Za-z0-9_-]{1,200}$/, 'must be a cursor returned by an earlier page');

/**
 * GET /v1/messages query. Unlike the session list, unknown parameters are refused: a misspelt
 * filter (`directon=in`) would otherwise silently widen what a client reads.
 */
export const ListMessagesQuery = z
  .object({
    sessionId: SessionId.optional(),
    direction: MessageDirection.optional(),
    /** The other party: the recipient of an outbound message, the sender of an inbound one. */
    contact: Phone.optional(),
    /** Messages at or after this time. */
    since: IsoTimestamp.optional(),
    /** Messages before this time. */
    until: IsoTimestamp.optional(),
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
export const ListMessagesResult = z.object({ messages: z.array(HistoryItem), nextCursor: HistoryCursor.nullable() });
export type ListMessagesResult = z.infer<typeof ListMessagesResult>;
export const ListMessagesResponse = successEnvelope(ListMessagesResult);

/**
 * `data` of GET /v1/messages/{id}: an outbound message keeps the status lookup's shape (with
 * `direction: "out"`), an inbound one is its history item.
 */
export const MessageLookupView = z.union([
  MessageStatusView.extend({ direction: z.literal('out') }),
  HistoryItem.extend({ direction: z.literal('in') }),
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
