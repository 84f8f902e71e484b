import { z } from 'zod';
import { AccountId, KeyId } from '../common/ids.js';
import { IsoTimestamp } from '../common/time.js';

/** Prefix of every API key Switchboard mints. */
export const API_KEY_PREFIX = 'sbk_';

/** Random bytes in a minted key: 256 bits, comfortably above the required 128. */
export const API_KEY_RANDOM_BYTES = 32;

/** A key as Switchboard mints it: `sbk_` + 32 random bytes in unpadded base64url (43 characters). */
export const MintedApiKey = z.string().regex(/^sbk_[A-Za-z0-9_-]{43}$/, 'must be "sbk_" followed by 43 base64url characters');
export type MintedApiKey = z.infer<typeof MintedApiKey>;

/**
 * API key secret as presented in `Authorization: Bearer <key>`. Loose on purpose: an operator may
 * seed any string through SWITCHBOARD_BOOTSTRAP_API_KEY / SWITCHBOARD_ADMIN_API_KEY.
 */
export const ApiKeySecret = z
  .string()
  .min(16, 'API key is too short')
  .max(512)
  .regex(/^[\x21-\x7e]+$/, 'API key must be printable ASCII')
  .meta({ description: 'The API key itself, shown this once: send it as `Authorization: Bearer <key>`.', example: 'sbk_Jx2w9vT4mQ7rL0pZ8kN3yB6cF1hD5gS2aE4uW7iO9q' });
export type ApiKeySecret = z.infer<typeof ApiKeySecret>;

/**
 * Key hash: lower-case hex SHA-256 of the key's UTF-8 bytes. Keys carry at least 128 random bits,
 * so an unsalted fast hash is enough; it is also a lookup key. Only the hash crosses the bus or
 * enters an event: the raw key is seen by the gateway/CLI that mints or receives it, nowhere else.
 */
export const ApiKeyHash = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lower-case hex SHA-256');
export type ApiKeyHash = z.infer<typeof ApiKeyHash>;

/** Scope: what a key may call. `api`: the /v1 session and message endpoints; `admin`: /v1/admin. */
export const ApiKeyScope = z.enum(['api', 'admin']);
export type ApiKeyScope = z.infer<typeof ApiKeyScope>;

export const ApiKeyScopes = z
  .array(ApiKeyScope)
  .min(1)
  .refine((scopes) => new Set(scopes).size === scopes.length, 'scopes must not repeat')
  .meta({ description: 'What the key may call: `api` (sessions, messages, webhooks, events), `admin` (`/v1/admin`).', example: ['api'] });
export type ApiKeyScopes = z.infer<typeof ApiKeyScopes>;

export const DEFAULT_KEY_SCOPES: readonly ApiKeyScope[] = ['api'];

/** An API key as listed (never its secret or hash). */
export const ApiKeyView = z.object({
  keyId: KeyId,
  accountId: AccountId,
  scopes: ApiKeyScopes,
  createdAt: IsoTimestamp.meta({ description: 'When the key was made.', example: '2026-11-21T10:15:30.000Z' }),
  revokedAt: IsoTimestamp.nullable().meta({ description: 'When it was revoked; null while it works.', example: null }),
});
export type ApiKeyView = z.infer<typeof ApiKeyView>;
