import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { ApiKeyHash} from '@switchboard/contracts';
import { API_KEY_PREFIX, API_KEY_RANDOM_BYTES, ApiKeySecret, MintedApiKey } from '@switchboard/contracts';

/**
 * The one place keys are minted and hashed, shared by the quota service (bootstrap), the CLI
 * and the gateway, so a key minted anywhere hashes to what `quota.authenticate` looks up.
 */

/** A fresh key: `sbk_` + 32 random bytes in unpadded base64url (256 bits). Show it once. */
export function mintApiKey(): MintedApiKey {
  return MintedApiKey.parse(`${API_KEY_PREFIX}${randomBytes(API_KEY_RANDOM_BYTES).toString('base64url')}`);
}

/**
 * Lower-case hex SHA-256 of the key's UTF-8 bytes: what crosses the bus and enters events. The
 * one-shot `hash` (no Hash object per call): the gateway hashes the key of every request.
 */
export function hashApiKey(key: string): ApiKeyHash {
  return hash('sha256', key, 'hex');
}

/**
 * Validates an operator-supplied key (SWITCHBOARD_BOOTSTRAP_API_KEY / _ADMIN_API_KEY) and names
 * the variable in the error, never the value.
 */
export function parseApiKeySecret(value: string, source: string): ApiKeySecret {
  const parsed = ApiKeySecret.safeParse(value);
  if (parsed.success) return parsed.data;
  const reasons = parsed.error.issues.map((issue) => issue.message).join('; ');
  throw new Error(`${source} is not a usable API key: ${reasons} (at least 16 printable ASCII characters, no spaces)`);
}

/** Constant-time comparison of two key hashes (a mismatch in length is simply false). */
export function sameKeyHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
