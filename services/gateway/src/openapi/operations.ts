import type { ADMIN_ENDPOINTS, ErrorCode, HEALTH_ENDPOINTS, MESSAGE_ENDPOINTS, SESSION_ENDPOINTS, WEBHOOK_ENDPOINTS } from '@switchboard/contracts';

/** `tag.name` of every endpoint of the contracts' tables: the key of its documentation. */
export type OperationName =
  | `sessions.${keyof typeof SESSION_ENDPOINTS}`
  | `messages.${keyof typeof MESSAGE_ENDPOINTS}`
  | `webhooks.${keyof typeof WEBHOOK_ENDPOINTS}`
  | `admin.${keyof typeof ADMIN_ENDPOINTS}`
  | `health.${keyof typeof HEALTH_ENDPOINTS}`;

/**
 * What the OpenAPI document says of one operation beyond its schemas. `errors` are the codes of
 * this operation only; what every authenticated call can answer (400, 401, 403, 408, 413, 415,
 * 431, 500, 503, 504) is added by the document builder from the endpoint's shape.
 */
export interface OperationDoc {
  readonly summary: string;
  readonly description: string;
  readonly errors: readonly ErrorCode[];
  /** Sends: 202 `pending` past the send deadline, and the `RateLimit-*` headers. */
  readonly send?: true;
  /** Takes `Idempotency-Key`; a replay carries `Idempotent-Replayed: true`. */
  readonly idempotent?: true;
  /** Answers with bytes of the message's own Content-Type, not JSON. */
  readonly binary?: true;
}

const SEND_ERRORS: readonly ErrorCode[] = [
  'SESSION_NOT_FOUND',
  'MESSAGE_NOT_FOUND',
  'SESSION_NOT_CONNECTED',
  'IDEMPOTENCY_KEY_REUSED',
  'RECIPIENT_NOT_ON_CHAT_NETWORK',
  'DAILY_MESSAGE_LIMIT_REACHED',
  'CHAT_NETWORK_ERROR',
];

const SEND_DESCRIPTION =
  'Sends through a connected session of the account. Answers 201 `sent` once the chat network acknowledged the message, or 202 ' +
  '`pending` when it has not within the send deadline (the message is still sent; follow it with `GET /v1/messages/{messageId}` ' +
  'or the `message.status` event). Each send counts against the plan\'s daily messages: `RateLimit-Limit`, `-Remaining` and ' +
  '`-Reset` say where the account stands, and 429 `DAILY_MESSAGE_LIMIT_REACHED` comes with `Retry-After`. A failure after the ' +
  'message got an id (e.g. 422 `RECIPIENT_NOT_ON_CHAT_NETWORK`) names it in `details.messageId`. `quotedMessageId` (text) makes ' +
  'the message a reply to one sent through the same session (404 `MESSAGE_NOT_FOUND` otherwise).';

/** Every operation's summary, description and own error codes. */
export const OPERATION_DOCS: Readonly<Record<OperationName, OperationDoc>> = {
  'sessions.create': {
    summary: 'Create a session',
    description:
      'Starts linking a device: answers the first QR code to scan with WhatsApp on the phone (Settings → Linked devices) and when ' +
      'it expires (codes rotate; read the current one from `/qr`). The session is `pending` until scanned, then `connected`. ' +
      'Counts against the plan\'s concurrent sessions (429 `SESSION_LIMIT_REACHED` with `details: {limit, used}`). 502 ' +
      '`CHAT_NETWORK_ERROR` when the network issued no QR code; `details.cause` says why: `dns` (the host does not resolve), `tcp` ' +
      '(no connection: refused, reset, unreachable), `tls` (the handshake failed), `rejected` (the network refused us), each with ' +
      '`host` where known and `detail` in words, answered as soon as it is clear; or `timeout` (nothing within 20 s). No session ' +
      'is kept then (the list does not show it) and the plan slot is free again.\n\nWith `phoneNumber`, the answer also carries ' +
      '`pairingCode` (`ABCD-EFGH`): the person types it on that phone (WhatsApp → Linked devices → Link a device → "Link with phone ' +
      'number instead") instead of scanning. The code works until the pairing ends (about 2 min 40 s, then `timeout`, as an unscanned ' +
      'QR); a wrong code leaves the session `pending`. The QR code keeps working beside it.',
    errors: ['IDEMPOTENCY_KEY_REUSED', 'SESSION_NOT_PENDING', 'SESSION_LIMIT_REACHED', 'CHAT_NETWORK_ERROR'],
    idempotent: true,
  },
  'sessions.list': {
    summary: 'List sessions',
    description: 'The account\'s sessions, newest first, a page at a time (`limit`, `offset`), optionally of one `status`.',
    errors: [],
  },
  'sessions.get': {
    summary: 'Get a session',
    description:
      'One session: its status, why it is `disconnected`, `timeout` or `error` (`statusReason`: a `code` and a sentence, with the ' +
      'network\'s cause when it could not be reached), its name, and when it was created and last active.',
    errors: ['SESSION_NOT_FOUND'],
  },
  'sessions.qr': {
    summary: 'Get the current QR code',
    description:
      'The QR code to scan now, as a PNG data URL, and when it rotates. Only a `pending` session has one (409 otherwise); one ' +
      'created with `phoneNumber` has one too, beside its pairing code.',
    errors: ['SESSION_NOT_FOUND', 'SESSION_NOT_PENDING'],
  },
  'sessions.delete': {
    summary: 'Delete a session',
    description: 'Logs the linked device out of the chat network, forgets its credentials and frees its plan slot. Its messages stay in the history.',
    errors: ['SESSION_NOT_FOUND'],
  },
  'sessions.contact': {
    summary: 'Check whether a number is on the chat network',
    description:
      'Asks the network through the session\'s own connection whether `phone` has an account (`onWhatsApp`), with its LID when the ' +
      'network names one. Answers are kept 5 minutes per session and number; each session may look up 30 new numbers a minute ' +
      '(429 `CONTACT_CHECK_LIMIT_REACHED` with `Retry-After` past that: many lookups of unknown numbers look like a bot to the network).',
    errors: ['SESSION_NOT_FOUND', 'SESSION_NOT_CONNECTED', 'CONTACT_CHECK_LIMIT_REACHED', 'CHAT_NETWORK_ERROR'],
  },
  'messages.sendText': { summary: 'Send a text message', description: SEND_DESCRIPTION, errors: SEND_ERRORS, send: true, idempotent: true },
  'messages.sendMedia': {
    summary: 'Send an image, video, audio or document',
    description:
      `${SEND_DESCRIPTION}\n\n\`media\` is an http(s) URL (fetched with a timeout; private and loopback addresses are refused) or the ` +
      'bytes inline as base64 or a data URL. Limits: image 5 MiB, video and audio 16 MiB, document 100 MiB; inline media also ' +
      'counts against the 25 MiB body, so send large files by URL. The bytes are checked against `mediaType`.',
    errors: [...SEND_ERRORS, 'MEDIA_UNREACHABLE', 'MEDIA_TOO_LARGE', 'MEDIA_TYPE_MISMATCH', 'MEDIA_URL_FORBIDDEN'],
    send: true,
    idempotent: true,
  },
  'messages.sendLocation': { summary: 'Send a location', description: SEND_DESCRIPTION, errors: SEND_ERRORS, send: true, idempotent: true },
  'messages.sendButtons': {
    summary: 'Send a message with quick-reply buttons',
    description:
      `${SEND_DESCRIPTION}\n\nUp to 3 buttons, sent as WhatsApp's interactive (native-flow) quick-reply message, the only button form ` +
      'the network still accepts from a linked device. What recipients see depends on their app: current WhatsApp on phones shows the ' +
      'text with the buttons; WhatsApp Web and Desktop show "This message couldn\'t load" instead; the network may refuse it (502) or ' +
      'deliver it without buttons, and stops doing either without notice. A tap arrives as a `button_reply` message. ' +
      '**Prefer `POST /v1/messages/poll`**, which every WhatsApp client shows.',
    errors: SEND_ERRORS,
    send: true,
    idempotent: true,
  },
  'messages.sendPoll': {
    summary: 'Send a poll (recommended instead of buttons)',
    description:
      `${SEND_DESCRIPTION}\n\nA question with 2–12 unique options (\`multipleAnswers\`: whether several may be chosen), shown as a ` +
      'WhatsApp poll on every client. Each vote arrives as a `message.received` event of type `poll_vote` with the options the contact ' +
      'has chosen now (`pollVote.pollMessageId` is this message\'s id); a later vote of the same contact replaces the earlier one. ' +
      'Counts as one message of the daily limit.',
    errors: SEND_ERRORS,
    send: true,
    idempotent: true,
  },
  'messages.list': {
    summary: 'Read the conversation history',
    description: 'Messages sent and received through the account\'s sessions, newest first, filtered by session, direction, contact and time; page with `nextCursor`.',
    errors: [],
  },
  'messages.get': {
    summary: 'Get a message and its status',
    description: 'An outbound message\'s status (`pending`, `sent`, `delivered`, `read` or `failed` with its reason) and times, or an inbound message as the history shows it.',
    errors: ['MESSAGE_NOT_FOUND'],
  },
  'messages.media': {
    summary: 'Download a message\'s media',
    description: 'The bytes of a media message, with their own Content-Type. Media is kept 24 h after it was sent or received.',
    errors: ['MESSAGE_NOT_FOUND', 'MEDIA_NOT_FOUND'],
    binary: true,
  },
  'webhooks.create': {
    summary: 'Register a webhook',
    description:
      'An HTTPS endpoint that receives the account\'s events, signed per Standard Webhooks with the secret answered here (shown once, ' +
      'and again to a retry with the same `Idempotency-Key`). URLs that resolve to private, loopback or link-local addresses are refused.\n\n' +
      'A retry with the same `Idempotency-Key` and body within 24 h answers 201 for the first webhook as it is now (its current ' +
      'secret, after a rotation) instead of making a second one; 404 `WEBHOOK_NOT_FOUND` once that webhook was deleted.',
    errors: ['IDEMPOTENCY_KEY_REUSED', 'WEBHOOK_NOT_FOUND', 'WEBHOOK_URL_FORBIDDEN', 'WEBHOOK_LIMIT_REACHED'],
    idempotent: true,
  },
  'webhooks.list': { summary: 'List webhooks', description: 'The account\'s webhooks, without their secrets.', errors: [] },
  'webhooks.get': { summary: 'Get a webhook', description: 'One webhook, without its secret.', errors: ['WEBHOOK_NOT_FOUND'] },
  'webhooks.update': {
    summary: 'Change a webhook',
    description: 'Changes its `url`, `events`, `description` or `enabled` (a disabled webhook keeps its deliveries pending until enabled again).',
    errors: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_URL_FORBIDDEN'],
  },
  'webhooks.delete': { summary: 'Delete a webhook', description: 'Stops deliveries to it; its pending deliveries fail.', errors: ['WEBHOOK_NOT_FOUND'] },
  'webhooks.rotateSecret': {
    summary: 'Rotate a webhook\'s secret',
    description: 'Answers a new signing secret (shown once); the old one still signs for 24 h (`previousSecretValidUntil`), both signatures are sent meanwhile.',
    errors: ['WEBHOOK_NOT_FOUND'],
  },
  'webhooks.deliveries': {
    summary: 'List a webhook\'s deliveries',
    description: 'Its deliveries, newest first, optionally of one `status`, with attempts, the last status code and error, and the next attempt; page with `nextCursor`.',
    errors: ['WEBHOOK_NOT_FOUND'],
  },
  'webhooks.replay': {
    summary: 'Deliver past events again',
    description: 'Sends the account\'s recorded events of a time window again (the types the webhook takes, narrowed by `types`), under their own ids; answers how many were queued.',
    errors: ['WEBHOOK_NOT_FOUND'],
  },
  'webhooks.test': {
    summary: 'Send a test event',
    description: 'Queues one `webhook.test` event for this webhook and answers its `eventId`.',
    errors: ['WEBHOOK_NOT_FOUND'],
  },
  'admin.createAccount': {
    summary: 'Create an account',
    description: 'A new tenant on a plan, with its first API key answered once: it is never stored in clear and cannot be shown again.',
    errors: [],
  },
  'admin.listAccounts': { summary: 'List accounts', description: 'Every account, oldest first, a page at a time (`limit`, `offset`).', errors: [] },
  'admin.getAccount': {
    summary: 'Get an account',
    description: 'One account: plan, limits, today\'s usage, and `closedAt` once it was closed (closed accounts still answer).',
    errors: ['ACCOUNT_NOT_FOUND'],
  },
  'admin.patchAccount': {
    summary: 'Change an account\'s plan or name',
    description: 'A new plan applies from the next request; a rename is recorded as `AccountRenamed`. A closed account takes no change (403 `FORBIDDEN`).',
    errors: ['ACCOUNT_NOT_FOUND'],
  },
  'admin.closeAccount': {
    summary: 'Close an account',
    description:
      'Closes the account for good: every key of it is revoked (refused within one second on every gateway), every session of it ' +
      'is deleted (logged out of the chat network, its credentials wiped, its plan slot freed), and it takes no new session, ' +
      'message, key or change any more (403 `FORBIDDEN` for the admin calls that would). Its history stays: messages and events ' +
      'are kept, and `GET /v1/admin/accounts/{accountId}` still answers, with `closedAt` set. Answers what this request did; ' +
      'closing again answers 200 with the first `closedAt` (and usually nothing left to delete or revoke). A 503 or 504 leaves ' +
      'the account closed with its sessions still being deleted: close it again to finish and see the count.',
    errors: ['ACCOUNT_NOT_FOUND'],
  },
  'admin.eraseAccount': {
    summary: 'Erase an account\'s message contents',
    description:
      'Crypto-shredding (GDPR right to erasure): destroys the data key that sealed the account\'s message contents and deletes ' +
      'their media files, so every text, caption, media file, place, contact card and poll of its messages, sent or received, ' +
      'reads `[erased]` from then on (`erased: true`, `text: "[erased]"` in the history, the lookup and `message.received` ' +
      'events, replays and webhook retries included). Kept: ids, parties, times, statuses, reactions, counts and the hash ' +
      'chain of the recorded events, which `switchboard audit verify` still checks. The account stays open: a message sent ' +
      'afterwards is sealed under a new key. Erasing again answers 200 with the first `erasedAt` and zeros, unless messages ' +
      'were sent since. A message still waiting for the network when its content is erased fails with `CONTENT_ERASED`.',
    errors: ['ACCOUNT_NOT_FOUND'],
  },
  'admin.createKey': {
    summary: 'Create an API key',
    description: 'A new key for the account with the given scopes, answered once. A closed account takes none (403 `FORBIDDEN`).',
    errors: ['ACCOUNT_NOT_FOUND'],
  },
  'admin.listKeys': {
    summary: 'List an account\'s API keys',
    description: 'Key ids, scopes and whether each is revoked; never the keys themselves.',
    errors: ['ACCOUNT_NOT_FOUND'],
  },
  'admin.revokeKey': {
    summary: 'Revoke an API key',
    description: 'The key stops working within one second on every gateway. Revoking twice answers 200.',
    errors: ['KEY_NOT_FOUND'],
  },
  'health.healthz': { summary: 'Liveness probe', description: 'Answers 200 while the process can answer at all.', errors: [] },
  'health.readyz': {
    summary: 'Readiness probe',
    description:
      'Answers 200 `ready` when every check passes (the bus, each service), else 503 `not_ready` with the same body. `chatNetwork` ' +
      'is advisory (`advisory: true`, never fails readiness): whether the sessions\' own connections last reached the chat network, ' +
      'and if not, why (`dns`, `tcp`, `tls`, `rejected`).',
    errors: [],
  },
};
