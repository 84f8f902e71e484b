import { z } from 'zod';
import type { EndpointContract } from '../common/routes.js';
import { MessageResponse, successEnvelope } from '../common/envelope.js';
import { AccountId, KeyId } from '../common/ids.js';
import { Plan } from '../common/plans.js';
import { ListLimit, ListOffset, PAGE_FIELDS } from '../common/query.js';
import { IsoTimestamp } from '../common/time.js';
import { ApiKeyScopes, ApiKeySecret, ApiKeyView } from '../quota/keys.js';

/** Account name: optional label, 1–100 characters like a session name. */
export const AccountName = z
  .string()
  .min(1, 'name must be 1–100 characters')
  .max(100, 'name must be 1–100 characters')
  .meta({ description: 'A label for the account, 1–100 characters.', example: 'Acme support' });
export type AccountName = z.infer<typeof AccountName>;

// ---- requests (all need a key with the `admin` scope) ----------------------------------------

/** POST /v1/admin/accounts */
export const CreateAccountBody = z.object({ name: AccountName.optional(), plan: Plan }).strict();
export type CreateAccountBody = z.infer<typeof CreateAccountBody>;

/** PATCH /v1/admin/accounts/{accountId}: the plan (applies to the next request), the name, or both. */
export const PatchAccountBody = z
  .object({ plan: Plan.optional(), name: AccountName.optional() })
  .strict()
  .refine((body) => body.plan !== undefined || body.name !== undefined, { message: 'give plan, name or both' });
export type PatchAccountBody = z.infer<typeof PatchAccountBody>;

/** POST /v1/admin/accounts/{accountId}/keys: body optional; scopes default to `["api"]`. */
export const CreateKeyBody = z.object({ scopes: ApiKeyScopes.optional() }).strict();
export type CreateKeyBody = z.infer<typeof CreateKeyBody>;

/** GET /v1/admin/accounts: oldest first, as the CLI lists them. Unknown query parameters are ignored. */
export const ListAccountsQuery = z.object({ limit: ListLimit, offset: ListOffset });
export type ListAccountsQuery = z.infer<typeof ListAccountsQuery>;

export const AccountIdParams = z.object({ accountId: AccountId });
export type AccountIdParams = z.infer<typeof AccountIdParams>;

export const KeyIdParams = z.object({ keyId: KeyId });
export type KeyIdParams = z.infer<typeof KeyIdParams>;

// ---- responses ------------------------------------------------------------------------------

/** `data` of POST /v1/admin/accounts (201). `apiKey` is shown this once and never again. */
export const CreateAccountResult = z.object({
  accountId: AccountId,
  name: AccountName.nullable().meta({ description: 'The account\'s label, or null.', example: 'Acme support' }),
  plan: Plan,
  /** The first key's id (to list or revoke it later). */
  keyId: KeyId,
  apiKey: ApiKeySecret,
});
export type CreateAccountResult = z.infer<typeof CreateAccountResult>;
export const CreateAccountResponse = successEnvelope(CreateAccountResult);
export type CreateAccountResponse = z.infer<typeof CreateAccountResponse>;

/** An account with its current usage: slots held and messages counted today (UTC). */
export const AccountView = z.object({
  accountId: AccountId,
  name: AccountName.nullable().meta({ description: 'The account\'s label, or null.', example: 'Acme support' }),
  plan: Plan,
  activeSessions: z.number().int().min(0).meta({ description: 'Sessions holding a plan slot now (`pending` or `connected`).', example: 1 }),
  messagesToday: z.number().int().min(0).meta({ description: 'Messages counted today (UTC).', example: 42 }),
  closedAt: IsoTimestamp.nullable().meta({
    description: 'When the account was closed (its keys revoked, its sessions deleted, its history kept); null while it is open.',
    example: null,
  }),
});
export type AccountView = z.infer<typeof AccountView>;
export const AccountResponse = successEnvelope(AccountView);
export type AccountResponse = z.infer<typeof AccountResponse>;

/** `data` of POST /v1/admin/accounts/{id}/keys (201). `apiKey` is shown this once. */
export const CreateKeyResult = z.object({ keyId: KeyId, scopes: ApiKeyScopes, apiKey: ApiKeySecret });
export type CreateKeyResult = z.infer<typeof CreateKeyResult>;
export const CreateKeyResponse = successEnvelope(CreateKeyResult);
export type CreateKeyResponse = z.infer<typeof CreateKeyResponse>;

/** `data` of GET /v1/admin/accounts: `total` counts every account; limit/offset as applied. */
export const ListAccountsResult = z.object({
  accounts: z.array(AccountView).meta({ description: 'The page of accounts, oldest first.' }),
  ...PAGE_FIELDS,
});
export type ListAccountsResult = z.infer<typeof ListAccountsResult>;
export const ListAccountsResponse = successEnvelope(ListAccountsResult);
export type ListAccountsResponse = z.infer<typeof ListAccountsResponse>;

/** `data` of GET /v1/admin/accounts/{id}/keys: every key, revoked ones too, never a secret. */
export const ListKeysResult = z.object({ keys: z.array(ApiKeyView).meta({ description: 'Every key of the account, revoked ones too.' }) });
export type ListKeysResult = z.infer<typeof ListKeysResult>;
export const ListKeysResponse = successEnvelope(ListKeysResult);
export type ListKeysResponse = z.infer<typeof ListKeysResponse>;

/** DELETE /v1/admin/keys/{keyId}: `{ success: true, message }`. Revoking twice also answers 200. */
export const RevokeKeyResponse = MessageResponse;
export type RevokeKeyResponse = MessageResponse;

/**
 * `data` of DELETE /v1/admin/accounts/{accountId}: what this request did. Closing a closed account
 * answers 200 again with its first `closedAt` and what was still left to do (usually 0 and 0).
 * `sessionsDeleted` also counts what the sessions service did on the closure's own fact a moment
 * before the request reached it (the two race); no deletion is counted in two answers.
 */
export const CloseAccountResult = z.object({
  accountId: AccountId,
  closedAt: IsoTimestamp.meta({ description: 'When the account was closed (the first time, when closed again).', example: '2026-11-21T10:15:30.000Z' }),
  sessionsDeleted: z.number().int().min(0).meta({
    description: 'Sessions of the account deleted by this closure and not counted in an earlier answer: each logged out of the chat network, its credentials wiped, its plan slot freed.',
    example: 2,
  }),
  keysRevoked: z.number().int().min(0).meta({ description: 'API keys this request revoked (every key that still worked).', example: 1 }),
});
export type CloseAccountResult = z.infer<typeof CloseAccountResult>;
export const CloseAccountResponse = successEnvelope(CloseAccountResult);
export type CloseAccountResponse = z.infer<typeof CloseAccountResponse>;

/** POST /v1/admin/accounts/{accountId}/erase: no body (an empty object at most). */
export const EraseAccountBody = z.object({}).strict();

/**
 * `data` of POST /v1/admin/accounts/{accountId}/erase (crypto-shredding, issue 16): the account's
 * message contents now read as `[erased]` everywhere; ids, times, statuses, counts and the hash
 * chain stay. Erasing again answers 200 with the first `erasedAt` and zeros, unless messages sent
 * since were sealed under a new key (that key is destroyed then, with a new `erasedAt`).
 */
export const EraseAccountResult = z.object({
  accountId: AccountId,
  erasedAt: IsoTimestamp.meta({ description: 'When the contents were erased (the earlier erasure when nothing was left to erase).', example: '2026-11-21T10:15:30.000Z' }),
  keysDestroyed: z.number().int().min(0).meta({ description: 'Data keys destroyed by this request: every content they sealed is unreadable for good.', example: 1 }),
  blobsDeleted: z.number().int().min(0).meta({ description: 'Media files of the account\'s messages deleted by this request.', example: 3 }),
  publicEventsErased: z.number().int().min(0).meta({ description: 'Recorded `message.received` events (for the live stream, replays and webhook retries) whose contents this request replaced by `[erased]`.', example: 12 }),
});
export type EraseAccountResult = z.infer<typeof EraseAccountResult>;
export const EraseAccountResponse = successEnvelope(EraseAccountResult);
export type EraseAccountResponse = z.infer<typeof EraseAccountResponse>;

/** Method, path, and the schemas of each admin endpoint, for routing and OpenAPI. */
export const ADMIN_ENDPOINTS = {
  createAccount: { method: 'POST', path: '/v1/admin/accounts', status: 201, body: CreateAccountBody, response: CreateAccountResponse },
  listAccounts: { method: 'GET', path: '/v1/admin/accounts', status: 200, query: ListAccountsQuery, response: ListAccountsResponse },
  getAccount: { method: 'GET', path: '/v1/admin/accounts/:accountId', status: 200, params: AccountIdParams, response: AccountResponse },
  patchAccount: {
    method: 'PATCH',
    path: '/v1/admin/accounts/:accountId',
    status: 200,
    params: AccountIdParams,
    body: PatchAccountBody,
    response: AccountResponse,
  },
  closeAccount: { method: 'DELETE', path: '/v1/admin/accounts/:accountId', status: 200, params: AccountIdParams, response: CloseAccountResponse },
  eraseAccount: {
    method: 'POST',
    path: '/v1/admin/accounts/:accountId/erase',
    status: 200,
    params: AccountIdParams,
    body: EraseAccountBody,
    response: EraseAccountResponse,
  },
  createKey: {
    method: 'POST',
    path: '/v1/admin/accounts/:accountId/keys',
    status: 201,
    params: AccountIdParams,
    body: CreateKeyBody,
    response: CreateKeyResponse,
  },
  listKeys: { method: 'GET', path: '/v1/admin/accounts/:accountId/keys', status: 200, params: AccountIdParams, response: ListKeysResponse },
  revokeKey: { method: 'DELETE', path: '/v1/admin/keys/:keyId', status: 200, params: KeyIdParams, response: RevokeKeyResponse },
} as const satisfies Record<string, EndpointContract>;
