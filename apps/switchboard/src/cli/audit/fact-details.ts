import { ERASED_TEXT } from '@switchboard/contracts';

type Data = Record<string, unknown>;

/**
 * The fields that matter of each fact, in words, for `audit history`. Contents (texts, captions,
 * names) are shown shortened: an auditor needs to recognise a message, not to read it in full
 * (`--json` and the export carry the whole record). Never a secret or what stands for one: no key
 * hashes, no Idempotency-Key hashes, no webhook secret fingerprints.
 */
const DETAILS: Readonly<Record<string, (d: Data) => string[]>> = {
  // message-msg_… (messaging)
  MessageAccepted: (d) => [`to ${d['to']}`, `session ${d['sessionId']}`, ...content(d['content']), ...when(d['quotedMessageId'], (q) => `quoting ${q}`), `usage day ${d['usageDay']}`],
  MessageSent: (d) => [`network id ${d['networkMessageId']}`, ...when(d['from'], (f) => `from ${f}`)],
  MessageDelivered: (d) => [`delivered at ${d['deliveredAt']}`],
  MessageRead: (d) => [`read at ${d['readAt']}`],
  MessageFailed: (d) => [`${d['code']}: ${short(d['message'])}`, d['refundable'] ? 'unit to refund' : 'no refund'],
  MessageQuotaRefunded: (d) => [`unit of ${d['usageDay']} refunded`],
  MessageReceived: (d) => [...received(d), ...content(d['content']), ...when(d['quotedMessageId'] ?? d['quotedNetworkId'], (q) => `quoting ${q}`)],
  MessageContentsErased: (d) => ['contents erased', `keys destroyed: ${(d['keyIds'] as unknown[] | undefined)?.join(', ') || 'none live'}`],
  MessageReactionReceived: (d) => [...received(d), d['emoji'] === '' ? 'reaction removed' : `reacted ${d['emoji']}`, `on ${d['targetMessageId'] ?? d['targetNetworkId']}`],
  // session-ses_… (sessions)
  SessionCreated: (d) => [`account ${d['accountId']}`, ...when(d['name'], (n) => `name ${short(n)}`)],
  QrCodeIssued: (d) => [`code #${d['sequence']}`, `expires ${d['expiresAt']}`],
  SessionConnected: (d) => [`linked to ${d['phone']}`],
  SessionDisconnected: (d) => [String(d['reason']), ...when(d['detail'], short)],
  SessionTimedOut: () => ['no scan in time'],
  SessionFailed: (d) => [`${d['code']}: ${short(d['reason'])}`],
  SessionDeleted: (d) => [`was ${d['previousStatus']}`, d['loggedOut'] ? 'logged out of the network' : 'not logged out (network unreachable)'],
  SessionActivityRecorded: (d) => [String(d['activity'])],
  // account-acc_… and usage-acc_…-day (quota)
  AccountOpened: (d) => [`plan ${d['plan']}`, ...when(d['name'], (n) => `name ${short(n)}`)],
  PlanChanged: (d) => [`plan ${d['from']} -> ${d['to']}`],
  AccountRenamed: (d) => [`name ${short(d['from'] ?? '-')} -> ${short(d['to'])}`],
  AccountClosed: () => ['closed'],
  ApiKeyIssued: (d) => [`key ${d['keyId']}`, `scopes ${(d['scopes'] as unknown[] | undefined)?.join(',')}`],
  ApiKeyRevoked: (d) => [`key ${d['keyId']}`],
  SessionSlotReserved: (d) => [`session ${d['sessionId']}`, `limit ${d['limit'] ?? 'none'}`],
  SessionSlotReleased: (d) => [`session ${d['sessionId']}`],
  DailyQuotaReserved: (d) => [`message ${d['messageId']}`, `day ${d['day']}`, `limit ${d['limit'] ?? 'none'}`],
  DailyQuotaRefunded: (d) => [`message ${d['messageId']}`, `day ${d['day']}`],
  // webhook-wh_… (events)
  WebhookCreated: (d) => [`url ${d['url']}`, `events ${(d['events'] as unknown[] | undefined)?.join(',')}`, d['enabled'] ? 'enabled' : 'disabled'],
  WebhookUpdated: (d) => [`url ${d['url']}`, `events ${(d['events'] as unknown[] | undefined)?.join(',')}`, d['enabled'] ? 'enabled' : 'disabled'],
  WebhookSecretRotated: (d) => [`previous secret valid until ${d['previousValidUntil']}`],
  WebhookDeleted: () => ['deleted'],
};

/** Data fields never shown: hashes of secrets (a key, an Idempotency-Key) and secret fingerprints. */
const SECRET_FIELDS: ReadonlySet<string> = new Set(['keyHash', 'idempotencyKeyHash', 'secretFingerprint', 'previousFingerprint']);

/** The fact's fields in words (`to 1555…, text "Your order…"`); a type this version does not know shows its plain fields. */
export function factDetails(type: string, data: unknown): string {
  const d = isData(data) ? data : {};
  return (DETAILS[type]?.(d) ?? plainFields(d)).join(', ');
}

/** The data as `--json` shows it: whole, less what stands for a secret. */
export function shownData(data: unknown): unknown {
  if (!isData(data)) return data;
  return Object.fromEntries(Object.entries(data).filter(([key]) => !SECRET_FIELDS.has(key)));
}

const isData = (value: unknown): value is Data => typeof value === 'object' && value !== null && !Array.isArray(value);
const when = <T>(value: T | null | undefined, say: (value: T) => string): string[] => (value === null || value === undefined ? [] : [say(value)]);

const SHORT = 40;

/** A content string quoted and cut to 40 characters (`"Your order #42 has shipped and arrives …"`). */
function short(value: unknown): string {
  const text = String(value);
  return JSON.stringify(text.length > SHORT ? `${text.slice(0, SHORT)}…` : text);
}

function received(d: Data): string[] {
  return [`from ${d['from']}`, ...when(d['fromLid'], (lid) => `(lid ${lid})`), `to ${d['to']}`, `session ${d['sessionId']}`, `network id ${d['networkMessageId']}`];
}

/** Outbound (MessageContent) and inbound (InboundContent) contents, by type. */
function content(value: unknown): string[] {
  const c = isData(value) ? value : {};
  // Sealed under the account's data key (issue 16): erased once the key is destroyed, or not opened here.
  if (c['erased'] === true) return [`${c['type']} ${ERASED_TEXT}`];
  if (c['sealed'] !== undefined) return [`${c['type']} [sealed]`];
  const media = isData(c['media']) ? c['media'] : {};
  switch (c['type']) {
    case 'text':
      return [`text ${short(c['text'])}`];
    case 'buttons':
      return [`buttons ${short(c['text'])}`, `${(c['buttons'] as unknown[] | undefined)?.length ?? 0} buttons`];
    case 'media':
      return [`${media['mediaType'] ?? 'media'} ${media['mimetype']} ${media['size']} bytes`, `sha256 ${String(media['sha256']).slice(0, 12)}…`, ...when(c['caption'] ?? media['caption'], (t) => `caption ${short(t)}`)];
    case 'location':
      return [`location ${c['latitude']},${c['longitude']}`, ...when(c['name'], (n) => short(n))];
    case 'contact':
      return [`contact card ${short(c['displayName'])}`];
    case 'poll':
      return [`poll ${short(c['question'])}`, `${(c['options'] as unknown[] | undefined)?.length ?? 0} options`];
    case 'poll_vote':
      return [`poll vote on ${c['pollMessageId'] ?? c['pollNetworkId']}`, ...when(c['unreadable'] ? true : null, () => 'unreadable')];
    case 'button_reply':
      return [`button reply ${short(c['id'])}`];
    case 'unsupported':
      return [`unsupported ${c['rawType']}`];
    default:
      return [];
  }
}

function plainFields(d: Data): string[] {
  return Object.entries(d)
    .filter(([key, value]) => !SECRET_FIELDS.has(key) && ['string', 'number', 'boolean'].includes(typeof value))
    .map(([key, value]) => `${key} ${typeof value === 'string' ? short(value) : String(value)}`);
}
