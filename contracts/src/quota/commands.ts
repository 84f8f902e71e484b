import { z } from 'zod';
import { AccountId, KeyId, MessageId, SessionId } from '../common/ids.js';
import { Plan } from '../common/plans.js';
import { IsoTimestamp, UtcDay } from '../common/time.js';
import { AccountName, AccountView } from '../admin/http.js';
import { ApiKeyHash, ApiKeyScopes, ApiKeyView } from './keys.js';

// Bus requests handled by the quota service. Raw API keys never cross the bus: whoever mints or
// receives a key (gateway, CLI, bootstrap) sends its SHA-256 only.

const Count = z.number().int().min(0);
/** `null` = unlimited (enterprise). */
const Limit = Count.nullable();

/** sb.v1.quota.authenticate: which account and scopes a presented key stands for. UNAUTHORIZED otherwise. */
export const AuthenticateRequest = z.object({ keyHash: ApiKeyHash });
export type AuthenticateRequest = z.infer<typeof AuthenticateRequest>;
export const AuthenticateReply = z.object({ accountId: AccountId, keyId: KeyId, scopes: ApiKeyScopes, plan: Plan });
export type AuthenticateReply = z.infer<typeof AuthenticateReply>;

/** sb.v1.quota.reserveSession / releaseSession. Both idempotent per sessionId. */
export const SessionSlotRequest = z.object({ accountId: AccountId, sessionId: SessionId });
export type SessionSlotRequest = z.infer<typeof SessionSlotRequest>;
/** Slots after the reservation. SESSION_LIMIT_REACHED with `{limit, used}` when none is free. */
export const ReserveSessionReply = z.object({ limit: Limit, used: Count });
export type ReserveSessionReply = z.infer<typeof ReserveSessionReply>;
/** `released` is false when the session held no slot (already released, or never reserved). */
export const ReleaseSessionReply = z.object({ released: z.boolean(), limit: Limit, used: Count });
export type ReleaseSessionReply = z.infer<typeof ReleaseSessionReply>;

/** sb.v1.quota.reserveDaily: one unit for one message, idempotent per messageId. */
export const ReserveDailyRequest = z.object({ accountId: AccountId, messageId: MessageId });
export type ReserveDailyRequest = z.infer<typeof ReserveDailyRequest>;
/**
 * Usage after the reservation; enough for the RateLimit-* headers. DAILY_MESSAGE_LIMIT_REACHED
 * with `{limit, used, resetsAt}` when the day is used up.
 */
export const DailyUsage = z.object({
  day: UtcDay,
  limit: Limit,
  used: Count,
  remaining: Limit,
  resetsAt: IsoTimestamp,
});
export type DailyUsage = z.infer<typeof DailyUsage>;

/** sb.v1.quota.refundDaily: give back the unit of a message that never reached the network. */
export const RefundDailyRequest = z.object({ accountId: AccountId, messageId: MessageId, day: UtcDay });
export type RefundDailyRequest = z.infer<typeof RefundDailyRequest>;
/** `refunded` is false when there was nothing to refund (never reserved, or refunded already). */
export const RefundDailyReply = z.object({ refunded: z.boolean() });
export type RefundDailyReply = z.infer<typeof RefundDailyReply>;

/** A key to attach, given by its hash (the caller minted it, or it is the bootstrap key). */
export const KeyRegistration = z.object({ keyHash: ApiKeyHash, scopes: ApiKeyScopes });
export type KeyRegistration = z.infer<typeof KeyRegistration>;

/** sb.v1.quota.accounts.create: opens an account, optionally with its first key. */
export const CreateAccountCommand = z.object({
  name: AccountName.optional(),
  plan: Plan,
  key: KeyRegistration.optional(),
});
export type CreateAccountCommand = z.infer<typeof CreateAccountCommand>;
export const CreateAccountReply = z.object({
  accountId: AccountId,
  name: AccountName.nullable(),
  plan: Plan,
  keyId: KeyId.nullable(),
});
export type CreateAccountReply = z.infer<typeof CreateAccountReply>;

/** sb.v1.quota.accounts.get */
export const AccountRef = z.object({ accountId: AccountId });
export type AccountRef = z.infer<typeof AccountRef>;

/** sb.v1.quota.accounts.list (CLI): oldest first. */
export const ListAccountsRequest = z.object({ limit: z.number().int().min(1).max(100), offset: Count });
export type ListAccountsRequest = z.infer<typeof ListAccountsRequest>;
export const ListAccountsReply = z.object({ accounts: z.array(AccountView), total: Count });
export type ListAccountsReply = z.infer<typeof ListAccountsReply>;

/**
 * sb.v1.quota.accounts.update: the plan, the name, or both, in one append (the admin PATCH);
 * answers with the account as it now is.
 */
export const UpdateAccountCommand = z
  .object({ accountId: AccountId, plan: Plan.optional(), name: AccountName.optional() })
  .refine((command) => command.plan !== undefined || command.name !== undefined, { message: 'give plan, name or both' });
export type UpdateAccountCommand = z.infer<typeof UpdateAccountCommand>;

/**
 * sb.v1.quota.accounts.close: records AccountClosed and revokes every key still working, in one
 * append. Closing a closed account records nothing and answers its first `closedAt`; `keysRevoked`
 * lists the keys this request revoked (empty then). The account's sessions are the sessions
 * service's to delete (`sb.v1.sessions.deleteAll`).
 */
export const CloseAccountReply = z.object({ accountId: AccountId, closedAt: IsoTimestamp, keysRevoked: z.array(KeyId) });
export type CloseAccountReply = z.infer<typeof CloseAccountReply>;

/** sb.v1.quota.keys.create */
export const CreateKeyCommand = z.object({ accountId: AccountId, keyHash: ApiKeyHash, scopes: ApiKeyScopes });
export type CreateKeyCommand = z.infer<typeof CreateKeyCommand>;

/** sb.v1.quota.keys.list */
export const ListKeysReply = z.object({ keys: z.array(ApiKeyView) });
export type ListKeysReply = z.infer<typeof ListKeysReply>;

/** sb.v1.quota.keys.revoke: by key id alone (the admin endpoint has no account in its path). */
export const RevokeKeyCommand = z.object({ keyId: KeyId });
export type RevokeKeyCommand = z.infer<typeof RevokeKeyCommand>;
/** Revoking a revoked key answers its original `revokedAt`. KEY_NOT_FOUND for unknown ids. */
export const RevokeKeyReply = z.object({ keyId: KeyId, accountId: AccountId, revokedAt: IsoTimestamp });
export type RevokeKeyReply = z.infer<typeof RevokeKeyReply>;
