import { decodeTime } from 'ulid';
import { z } from 'zod';

/**
 * Identifiers are a type prefix plus a ULID (26 characters of Crockford base32, time-sortable).
 * Only the canonical upper-case form is accepted: ids are opaque, we mint them ourselves, and one
 * spelling per id keeps stream names, subject tokens and map keys unambiguous.
 */
const ULID_BODY = '[0-7][0-9A-HJKMNP-TV-Z]{25}';

export const ID_PREFIX = {
  session: 'ses_',
  message: 'msg_',
  account: 'acc_',
  key: 'key_',
  webhook: 'wh_',
} as const;
export type IdKind = keyof typeof ID_PREFIX;

/**
 * When a prefixed id (`msg_…`, `acc_…`) was minted, in epoch ms, read from its ULID; null for an
 * id that does not end in one.
 */
export function mintedAtOf(id: string): number | null {
  try {
    return decodeTime(id.slice(-26));
  } catch {
    return null;
  }
}

/** Matches `<prefix><ULID>` for one kind of id. */
export function idPattern(kind: IdKind): RegExp {
  return new RegExp(`^${ID_PREFIX[kind]}${ULID_BODY}$`);
}

function prefixedId(kind: IdKind, example: string, description: string) {
  const prefix = ID_PREFIX[kind];
  return z
    .string()
    .regex(idPattern(kind), `must be ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} id: "${prefix}" followed by a 26-character ULID, e.g. "${example}"`)
    .meta({ description, example });
}

/** Session: one linked chat-network device (a scanned QR) owned by an account. */
export const SessionId = prefixedId('session', 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', 'The session\'s id (`ses_` and a ULID).');
export type SessionId = z.infer<typeof SessionId>;

/** Message: one outbound message sent through a session. */
export const MessageId = prefixedId('message', 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K', 'The message\'s id (`msg_` and a ULID).');
export type MessageId = z.infer<typeof MessageId>;

/** Account: the tenant; owns API keys, sessions and messages, and has a plan. */
export const AccountId = prefixedId('account', 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', 'The account\'s id (`acc_` and a ULID).');
export type AccountId = z.infer<typeof AccountId>;

/** Key id: public handle of an API key (never the secret itself). */
export const KeyId = prefixedId('key', 'key_01JD8Z5X0A1B2C3D4E5F6G7H8J', 'The API key\'s public id (`key_` and a ULID), never the key itself.');
export type KeyId = z.infer<typeof KeyId>;

/** Webhook: an account's HTTPS endpoint that receives its events. */
export const WebhookId = prefixedId('webhook', 'wh_01JD8Z9C2D3E4F5G6H7J8K9M0N', 'The webhook\'s id (`wh_` and a ULID).');
export type WebhookId = z.infer<typeof WebhookId>;

/** Correlation and causation ids: opaque tokens (trace ids, event ids, request ids). */
export const CorrelationId = z.string().min(1).max(128);
export type CorrelationId = z.infer<typeof CorrelationId>;
