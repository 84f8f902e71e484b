import { createHash } from 'node:crypto';
import { STREAM_CATEGORY } from '@switchboard/contracts';
import type { AccountId, KeyId, Plan } from '@switchboard/contracts';
import { hashApiKey, mintApiKey, parseApiKeySecret } from '@switchboard/service-kit';
import { AccountAlreadyOpened } from './account/errors.js';
import type { QuotaEngine } from './engine.js';

/**
 * The bootstrap account has a fixed id, so replicas starting together on an empty store race
 * on one stream: the expected revision lets exactly one open it (one key printed, never two
 * accounts sharing SWITCHBOARD_BOOTSTRAP_API_KEY).
 */
export const BOOTSTRAP_ACCOUNT_ID: AccountId = 'acc_00000000000000000000000000';

export interface BootstrapSettings {
  defaultPlan: Plan;
  bootstrapApiKey?: string | undefined;
  adminApiKey?: string | undefined;
  /** Told when SWITCHBOARD_BOOTSTRAP_API_KEY is set but the store already has accounts without that key. */
  onIgnoredKey?: (message: string) => void;
}

/** What the first start created. `apiKey` is set only when minted here: print it once, log it never. */
export interface BootstrapAccount {
  accountId: AccountId;
  plan: Plan;
  keyId: KeyId;
  apiKey: string | null;
}

/** On a store without accounts, opens one with the configured or a freshly minted key. */
export async function bootstrapAccount(engine: QuotaEngine, settings: BootstrapSettings): Promise<BootstrapAccount | undefined> {
  const configured = settings.bootstrapApiKey === undefined ? undefined : parseApiKeySecret(settings.bootstrapApiKey, 'SWITCHBOARD_BOOTSTRAP_API_KEY');
  const existing = await engine.store.readAll({ category: STREAM_CATEGORY.account, maxCount: 1 });
  if (existing.length > 0) {
    // Said, not silent: a key set for a fresh data dir would otherwise look like it works and fail with 401.
    if (configured !== undefined && (await engine.api.keyRecordByHash(hashApiKey(configured))) === undefined) {
      settings.onIgnoredKey?.('SWITCHBOARD_BOOTSTRAP_API_KEY is ignored: this data dir already has accounts and does not know that key (it only opens the first account of an empty store)');
    }
    return undefined;
  }
  const apiKey = configured ?? mintApiKey();
  const plan = settings.defaultPlan;
  const key = { keyHash: hashApiKey(apiKey), scopes: ['api' as const] };
  try {
    const opened = await engine.commands.openAccount({ name: 'bootstrap', plan, key }, {}, BOOTSTRAP_ACCOUNT_ID);
    return { accountId: opened.accountId, plan, keyId: opened.keyId!, apiKey: configured ? null : apiKey };
  } catch (error) {
    if (error instanceof AccountAlreadyOpened) return undefined; // another replica won the race
    throw error;
  }
}

/** A key id derived from the key's hash, in the far-future ULID range `7Z…` no minted id reaches. */
export function adminKeyIdOf(keyHash: string): KeyId {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const digest = createHash('sha256').update(keyHash).digest();
  const body = Array.from(digest.subarray(0, 24), (byte) => alphabet[byte % 32]).join('');
  return `key_7Z${body}`;
}

/**
 * SWITCHBOARD_ADMIN_API_KEY: a key with the `admin` scope on the bootstrap account (opened for
 * it if needed). Its id derives from its hash, so replicas agree; a previous admin key from the
 * variable (another `7Z…` id) is revoked when the variable changes.
 */
export async function registerAdminKey(engine: QuotaEngine, settings: BootstrapSettings): Promise<void> {
  if (settings.adminApiKey === undefined) return;
  const keyHash = hashApiKey(parseApiKeySecret(settings.adminApiKey, 'SWITCHBOARD_ADMIN_API_KEY'));
  const keyId = adminKeyIdOf(keyHash);
  const known = await engine.api.keyRecordByHash(keyHash);
  if (known && known.keyId !== keyId) throw new Error('SWITCHBOARD_ADMIN_API_KEY is already registered as another key; choose a different value');
  await engine.commands.openAccount({ name: 'bootstrap', plan: settings.defaultPlan }, {}, BOOTSTRAP_ACCOUNT_ID).catch((error: unknown) => {
    if (!(error instanceof AccountAlreadyOpened)) throw error;
  });
  const before = await engine.commands.accountSummary(BOOTSTRAP_ACCOUNT_ID);
  if (before.closedAt !== null) {
    // A closed account takes no key. Gateways compare the variable themselves, so it still works.
    settings.onIgnoredKey?.(`SWITCHBOARD_ADMIN_API_KEY is not registered in the store: its account ${BOOTSTRAP_ACCOUNT_ID} was closed; gateways still accept it from the variable`);
    return;
  }
  await engine.commands.execute(BOOTSTRAP_ACCOUNT_ID, (now) => ({ type: 'IssueKey', keyId, keyHash, scopes: ['admin'], now }));
  const account = await engine.commands.accountSummary(BOOTSTRAP_ACCOUNT_ID);
  for (const { keyId: previous, revokedAt } of account.keys) {
    if (previous !== keyId && previous.startsWith('key_7Z') && revokedAt === null) {
      await engine.commands.execute(BOOTSTRAP_ACCOUNT_ID, (now) => ({ type: 'RevokeKey', keyId: previous, now }));
    }
  }
}
