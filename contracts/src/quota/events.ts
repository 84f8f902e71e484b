import { z } from 'zod';
import { AccountId, KeyId, MessageId, SessionId } from '../common/ids.js';
import { Plan } from '../common/plans.js';
import { IsoTimestamp, UtcDay } from '../common/time.js';
import { defineEvent } from '../events/define.js';
import { createEventParser } from '../events/parser.js';
import { AccountName } from '../admin/http.js';
import { ApiKeyHash, ApiKeyScopes } from './keys.js';

// Events of the `account-acc_…` streams (account, keys, session slots) and of the
// `usage-acc_…-<day>` streams (daily message units). Slots live in the account stream so that
// reserving one is an append with the expected revision: concurrent reservations cannot overspend.

/** An account was opened with a plan. */
export const AccountOpened = defineEvent('AccountOpened', 1, {
  accountId: AccountId,
  name: AccountName.nullable(),
  plan: Plan,
  openedAt: IsoTimestamp,
});
export type AccountOpened = z.infer<typeof AccountOpened>;

/** The account moved to another plan; it applies from the next request. */
export const PlanChanged = defineEvent('PlanChanged', 1, {
  accountId: AccountId,
  from: Plan,
  to: Plan,
  changedAt: IsoTimestamp,
});
export type PlanChanged = z.infer<typeof PlanChanged>;

/** The account's label changed (it names nothing else: ids, keys and history stay). */
export const AccountRenamed = defineEvent('AccountRenamed', 1, {
  accountId: AccountId,
  from: AccountName.nullable(),
  to: AccountName,
  renamedAt: IsoTimestamp,
});
export type AccountRenamed = z.infer<typeof AccountRenamed>;

/**
 * The account was closed for good: it takes no new sessions, messages, keys or changes. Its keys
 * are revoked in the same append (ApiKeyRevoked each), its sessions are deleted by the sessions
 * service on this fact; its history (messages, events) stays.
 */
export const AccountClosed = defineEvent('AccountClosed', 1, {
  accountId: AccountId,
  closedAt: IsoTimestamp,
});
export type AccountClosed = z.infer<typeof AccountClosed>;

/** A key was issued. Only its SHA-256 is recorded (see ApiKeyHash); the secret is never stored. */
export const ApiKeyIssued = defineEvent('ApiKeyIssued', 1, {
  accountId: AccountId,
  keyId: KeyId,
  keyHash: ApiKeyHash,
  scopes: ApiKeyScopes,
  issuedAt: IsoTimestamp,
});
export type ApiKeyIssued = z.infer<typeof ApiKeyIssued>;

/** A key was revoked; gateways drop it from their caches on this fact. */
export const ApiKeyRevoked = defineEvent('ApiKeyRevoked', 1, {
  accountId: AccountId,
  keyId: KeyId,
  revokedAt: IsoTimestamp,
});
export type ApiKeyRevoked = z.infer<typeof ApiKeyRevoked>;

/** A concurrent-session slot was taken by a new session. `limit` is the plan's at that moment. */
export const SessionSlotReserved = defineEvent('SessionSlotReserved', 1, {
  accountId: AccountId,
  sessionId: SessionId,
  limit: z.number().int().min(0).nullable(),
  reservedAt: IsoTimestamp,
});
export type SessionSlotReserved = z.infer<typeof SessionSlotReserved>;

/** The session's slot was freed (deleted, timed out, disconnected or failed). */
export const SessionSlotReleased = defineEvent('SessionSlotReleased', 1, {
  accountId: AccountId,
  sessionId: SessionId,
  releasedAt: IsoTimestamp,
});
export type SessionSlotReleased = z.infer<typeof SessionSlotReleased>;

/** One daily message unit was taken for a message; keyed by message id so a retry cannot take two. */
export const DailyQuotaReserved = defineEvent('DailyQuotaReserved', 1, {
  accountId: AccountId,
  day: UtcDay,
  messageId: MessageId,
  limit: z.number().int().min(0).nullable(),
  reservedAt: IsoTimestamp,
});
export type DailyQuotaReserved = z.infer<typeof DailyQuotaReserved>;

/** The unit of a message that failed before reaching the network was given back. */
export const DailyQuotaRefunded = defineEvent('DailyQuotaRefunded', 1, {
  accountId: AccountId,
  day: UtcDay,
  messageId: MessageId,
  refundedAt: IsoTimestamp,
});
export type DailyQuotaRefunded = z.infer<typeof DailyQuotaRefunded>;

export const ACCOUNT_EVENTS = [
  AccountOpened,
  PlanChanged,
  AccountRenamed,
  AccountClosed,
  ApiKeyIssued,
  ApiKeyRevoked,
  SessionSlotReserved,
  SessionSlotReleased,
] as const;
export const USAGE_EVENTS = [DailyQuotaReserved, DailyQuotaRefunded] as const;
export const QUOTA_EVENTS = [...ACCOUNT_EVENTS, ...USAGE_EVENTS] as const;

/** Any event of an account stream (current versions). */
export const AccountEvent = z.discriminatedUnion('type', [...ACCOUNT_EVENTS]);
export type AccountEvent = z.infer<typeof AccountEvent>;

/** Any event of a usage stream (current versions). */
export const UsageEvent = z.discriminatedUnion('type', [...USAGE_EVENTS]);
export type UsageEvent = z.infer<typeof UsageEvent>;

export const QuotaEvent = z.discriminatedUnion('type', [...QUOTA_EVENTS]);
export type QuotaEvent = z.infer<typeof QuotaEvent>;
export type QuotaEventType = QuotaEvent['type'];

/** Reads a quota event (account or usage stream) from the store by type + version. */
export const quotaEventParser = createEventParser(QUOTA_EVENTS);
