import { z } from 'zod';
import type { EndpointContract } from '../common/routes.js';
import { successEnvelope, MessageResponse } from '../common/envelope.js';
import { SessionId } from '../common/ids.js';
import { Phone } from '../common/phone.js';
import { ListLimit, ListOffset, PAGE_FIELDS } from '../common/query.js';
import { IsoTimestamp } from '../common/time.js';
import { PairingCode, QrCodeDataUrl, SessionName, SessionStatus } from './status.js';

// ---- requests ------------------------------------------------------------------------------

/**
 * POST /v1/sessions. An absent body is treated as `{}` by the gateway. `phoneNumber` asks for a
 * pairing code for that number beside the QR code.
 */
export const CreateSessionBody = z
  .object({
    name: SessionName.optional(),
    phoneNumber: Phone.optional().meta({
      description:
        'Pair by code: the number of the phone that will link the session, country code and number, digits only. The answer then ' +
        'also carries `pairingCode`, to type on that phone instead of scanning the QR code.',
      example: '15551234567',
    }),
  })
  .strict();
export type CreateSessionBody = z.infer<typeof CreateSessionBody>;

/** Path parameters of /v1/sessions/{sessionId}[/qr]. */
export const SessionIdParams = z.object({ sessionId: SessionId });
export type SessionIdParams = z.infer<typeof SessionIdParams>;

/** Path parameters of /v1/sessions/{sessionId}/contacts/{phone}. */
export const ContactCheckParams = SessionIdParams.extend({
  phone: Phone.meta({ description: 'The number to look up: country code and number, digits only.', example: '15551234567' }),
});
export type ContactCheckParams = z.infer<typeof ContactCheckParams>;

/** GET /v1/sessions query. Unknown query parameters are refused (400), like unknown body fields. */
export const ListSessionsQuery = z.object({
  limit: ListLimit,
  offset: ListOffset,
  status: SessionStatus.optional().meta({ description: 'Only sessions in this status.', example: 'connected' }),
});
export type ListSessionsQuery = z.infer<typeof ListSessionsQuery>;
export type ListSessionsQueryInput = z.input<typeof ListSessionsQuery>;

// ---- responses -----------------------------------------------------------------------------

/** `data` of POST /v1/sessions (201): only these three fields, and `pairingCode` when created with `phoneNumber`. */
export const CreateSessionResult = z.object({
  sessionId: SessionId,
  qrCode: QrCodeDataUrl,
  pairingCode: PairingCode.optional(),
  status: z.literal('pending').meta({ description: 'Always `pending` until the code is scanned.', example: 'pending' }),
});
export type CreateSessionResult = z.infer<typeof CreateSessionResult>;
export const CreateSessionResponse = successEnvelope(CreateSessionResult);
export type CreateSessionResponse = z.infer<typeof CreateSessionResponse>;

/**
 * Why a session is `disconnected`, `timeout` or `error`: a stable `code` and a sentence. Codes:
 * `logged_out`, `connection_lost`, `replaced` (disconnected), `qr_timeout` (timeout), and the
 * failure's own code for `error` (e.g. `pairing_unavailable`, `resume_failed`).
 */
export const SessionStatusReasonView = z
  .object({
    code: z.string().min(1).max(100).meta({ description: 'Why, for machines.', example: 'connection_lost' }),
    message: z.string().min(1).max(1000).meta({
      description: 'Why, in words, with the network\'s cause when known.',
      example: 'The connection to the chat network was lost and could not be restored (dns: web.whatsapp.com could not be resolved (ENOTFOUND)).',
    }),
  })
  .nullable()
  .meta({ description: 'Why the session is `disconnected`, `timeout` or `error`; null while `pending` or `connected`.', example: null });
export type SessionStatusReasonView = z.infer<typeof SessionStatusReasonView>;

/** A session as GET and list show it. `lastActivity`: last state change, send or receipt. */
export const SessionView = z.object({
  sessionId: SessionId,
  status: SessionStatus,
  statusReason: SessionStatusReasonView,
  name: SessionName.nullable().meta({ description: 'The label given at creation, or null.', example: 'Support line' }),
  createdAt: IsoTimestamp.meta({ description: 'When the session was created.', example: '2026-11-21T10:15:30.000Z' }),
  lastActivity: IsoTimestamp.meta({ description: 'The last state change, send or receipt.', example: '2026-11-21T10:20:00.000Z' }),
});
export type SessionView = z.infer<typeof SessionView>;
export const GetSessionResponse = successEnvelope(SessionView);
export type GetSessionResponse = z.infer<typeof GetSessionResponse>;

/** `data` of GET /v1/sessions: newest first; `total` counts all matches; limit/offset as applied. */
export const ListSessionsResult = z.object({
  sessions: z.array(SessionView).meta({ description: 'The page of sessions, newest first.' }),
  ...PAGE_FIELDS,
});
export type ListSessionsResult = z.infer<typeof ListSessionsResult>;
export const ListSessionsResponse = successEnvelope(ListSessionsResult);
export type ListSessionsResponse = z.infer<typeof ListSessionsResponse>;

/** `data` of GET /v1/sessions/{id}/qr: the current pairing code and when it rotates. */
export const SessionQrResult = z.object({ qrCode: QrCodeDataUrl, expiresAt: IsoTimestamp });
export type SessionQrResult = z.infer<typeof SessionQrResult>;
export const SessionQrResponse = successEnvelope(SessionQrResult);
export type SessionQrResponse = z.infer<typeof SessionQrResponse>;

/**
 * `data` of GET /v1/sessions/{id}/contacts/{phone}: whether the number has an account on the chat
 * network, as the session's own connection asked it, and its LID where the network gave one.
 */
export const ContactCheck = z.object({
  phone: Phone.meta({ description: 'The number looked up.', example: '15551234567' }),
  onWhatsApp: z.boolean().meta({ description: 'Whether the number has an account on the chat network.', example: true }),
  lid: z.string().optional().meta({ description: 'The contact\'s LID (`…@lid`), when the network names one.', example: '915551234567@lid' }),
});
export type ContactCheck = z.infer<typeof ContactCheck>;
export const ContactCheckResponse = successEnvelope(ContactCheck);
export type ContactCheckResponse = z.infer<typeof ContactCheckResponse>;

/** DELETE /v1/sessions/{id}: `{ success: true, message }`, no `data`. */
export const DeleteSessionResponse = MessageResponse;
export type DeleteSessionResponse = MessageResponse;

/** Method, path, and the schemas of each session endpoint, for routing and OpenAPI. */
export const SESSION_ENDPOINTS = {
  create: { method: 'POST', path: '/v1/sessions', status: 201, body: CreateSessionBody, response: CreateSessionResponse },
  list: { method: 'GET', path: '/v1/sessions', status: 200, query: ListSessionsQuery, response: ListSessionsResponse },
  get: { method: 'GET', path: '/v1/sessions/:sessionId', status: 200, params: SessionIdParams, response: GetSessionResponse },
  qr: { method: 'GET', path: '/v1/sessions/:sessionId/qr', status: 200, params: SessionIdParams, response: SessionQrResponse },
  delete: { method: 'DELETE', path: '/v1/sessions/:sessionId', status: 200, params: SessionIdParams, response: DeleteSessionResponse },
  contact: { method: 'GET', path: '/v1/sessions/:sessionId/contacts/:phone', status: 200, params: ContactCheckParams, response: ContactCheckResponse },
} as const satisfies Record<string, EndpointContract>;
