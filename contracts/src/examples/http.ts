import { EXAMPLE_IDS as ID, EXAMPLE_PNG_DATA_URL, EXAMPLE_TIME, EXAMPLE_TIME_LATER } from './ids.js';

/**
 * One example per request and response shape of service-spec.md and api-decisions.md. Tests parse
 * each with its schema; the gateway can use them as OpenAPI examples, so docs and code agree.
 */
export const HTTP_EXAMPLES = {
  createSessionBody: { name: 'Support line' },
  createSessionResponse: { success: true, data: { sessionId: ID.session, qrCode: EXAMPLE_PNG_DATA_URL, status: 'pending' } },
  getSessionResponse: {
    success: true,
    data: { sessionId: ID.session, status: 'connected', statusReason: null, name: 'Support line', createdAt: EXAMPLE_TIME, lastActivity: EXAMPLE_TIME_LATER },
  },
  listSessionsQuery: { limit: '10', offset: '0', status: 'connected' },
  listSessionsResponse: {
    success: true,
    data: {
      sessions: [
        { sessionId: ID.session2, status: 'pending', statusReason: null, name: null, createdAt: EXAMPLE_TIME_LATER, lastActivity: EXAMPLE_TIME_LATER },
        { sessionId: ID.session, status: 'connected', statusReason: null, name: 'Support line', createdAt: EXAMPLE_TIME, lastActivity: EXAMPLE_TIME_LATER },
      ],
      total: 2,
      limit: 10,
      offset: 0,
    },
  },
  sessionQrResponse: { success: true, data: { qrCode: EXAMPLE_PNG_DATA_URL, expiresAt: EXAMPLE_TIME_LATER } },
  deleteSessionResponse: { success: true, message: 'Session deleted' },
  contactCheckResponse: { success: true, data: { phone: '15551234567', onWhatsApp: true, lid: '915551234567@lid' } },

  sendTextBody: { sessionId: ID.session, to: '15551234567', text: 'Hello from Switchboard', quotedMessageId: ID.message2 },
  sendMediaBody: {
    sessionId: ID.session,
    to: '15551234567',
    mediaType: 'document',
    media: 'https://example.com/files/invoice.pdf',
    caption: 'Your invoice',
    filename: 'invoice.pdf',
  },
  sendLocationBody: {
    sessionId: ID.session,
    to: '15551234567',
    latitude: 52.520008,
    longitude: 13.404954,
    name: 'Brandenburg Gate',
    address: 'Pariser Platz, 10117 Berlin',
  },
  sendButtonsBody: {
    sessionId: ID.session,
    to: '15551234567',
    text: 'Did this answer your question?',
    buttons: [
      { id: 'yes', text: 'Yes' },
      { id: 'no', text: 'No' },
      { id: 'agent', text: 'Talk to a person' },
    ],
    footer: 'Switchboard support',
  },
  sendPollBody: {
    sessionId: ID.session,
    to: '15551234567',
    question: 'Which day suits you for the visit?',
    options: ['Tuesday', 'Wednesday', 'Thursday'],
    multipleAnswers: false,
  },
  sendMessageResponse: { success: true, data: { messageId: ID.message, status: 'sent', timestamp: EXAMPLE_TIME } },
  sendMessagePendingResponse: { success: true, data: { messageId: ID.message, status: 'pending', timestamp: EXAMPLE_TIME } },
  sendMediaResponse: { success: true, data: { messageId: ID.message, status: 'sent', timestamp: EXAMPLE_TIME, mediaType: 'document' } },
  getMessageResponse: {
    success: true,
    data: { messageId: ID.message, direction: 'out', status: 'delivered', timestamp: EXAMPLE_TIME, deliveredAt: EXAMPLE_TIME_LATER, readAt: null },
  },
  getFailedMessageResponse: {
    success: true,
    data: {
      messageId: ID.message,
      direction: 'out',
      status: 'failed',
      timestamp: EXAMPLE_TIME,
      deliveredAt: null,
      readAt: null,
      sessionId: ID.session,
      to: '15551234567',
      type: 'text',
      error: { code: 'RECIPIENT_NOT_ON_CHAT_NETWORK', message: 'The recipient has no account on the chat network.' },
    },
  },

  createAccountBody: { name: 'Acme support', plan: 'basic' },
  createAccountResponse: {
    success: true,
    data: { accountId: ID.account, name: 'Acme support', plan: 'basic', keyId: ID.key, apiKey: 'sbk_Yk3q9Zp2Lm8Xv4Rt7Wn1Hs6Jd0Fg5Ce' },
  },
  accountResponse: {
    success: true,
    data: { accountId: ID.account, name: 'Acme support', plan: 'premium', activeSessions: 3, messagesToday: 120, closedAt: null },
  },
  closeAccountResponse: {
    success: true,
    data: { accountId: ID.account, closedAt: EXAMPLE_TIME, sessionsDeleted: 2, keysRevoked: 1 },
  },
  eraseAccountResponse: {
    success: true,
    data: { accountId: ID.account, erasedAt: EXAMPLE_TIME, keysDestroyed: 1, blobsDeleted: 3, publicEventsErased: 12 },
  },
  patchAccountBody: { plan: 'premium' },
  createKeyBody: { scopes: ['api'] },
  createKeyResponse: { success: true, data: { keyId: ID.key, scopes: ['api'], apiKey: 'sbk_Qw2Er4Ty6Ui8Op0As1Df3Gh5Jk7Lz9X' } },
  revokeKeyResponse: { success: true, message: 'API key revoked' },

  validationErrorResponse: {
    success: false,
    error: {
      code: 'VALIDATION_ERROR',
      message: 'The request is invalid; see details for every problem.',
      details: [
        {
          path: 'to',
          message:
            'must be an international phone number: 7–15 digits starting with the country code, no "+", spaces or dashes, e.g. "15551234567"',
        },
        { path: 'buttons.1.text', message: 'button text must be 1–20 characters' },
      ],
      requestId: '4bf92f3577b34da6a3ce929d0e0e4736',
    },
  },
  dailyLimitErrorResponse: {
    success: false,
    error: {
      code: 'DAILY_MESSAGE_LIMIT_REACHED',
      message: 'The plan allows no more messages today.',
      details: { limit: 50, used: 50, resetsAt: '2026-11-22T00:00:00.000Z' },
      requestId: '4bf92f3577b34da6a3ce929d0e0e4736',
    },
  },
  healthzResponse: { status: 'ok' },
  readyzResponse: {
    status: 'ready',
    checks: { bus: { ok: true }, sessions: { ok: true }, messaging: { ok: true }, quota: { ok: true }, events: { ok: true }, chatNetwork: { ok: true, advisory: true, detail: 'reached at 2026-01-01T12:00:00.000Z' } },
  },
} as const;
