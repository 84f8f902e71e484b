import type { ApiKeyScope, Plan } from '@switchboard/contracts';

/**
 * Principal: who a request acts for, established from its API key. An account key carries its
 * account, key id, scopes and the account's plan; the operator key (SWITCHBOARD_ADMIN_API_KEY)
 * has the `admin` scope and no account.
 */
export type Principal =
  | { readonly kind: 'account'; readonly accountId: string; readonly keyId: string; readonly scopes: readonly ApiKeyScope[]; readonly plan: Plan }
  | { readonly kind: 'operator'; readonly accountId: null; readonly keyId: null; readonly scopes: readonly ApiKeyScope[]; readonly plan: null };

export const OPERATOR: Principal = { kind: 'operator', accountId: null, keyId: null, scopes: ['admin'], plan: null };

export function hasScope(principal: Principal, scope: ApiKeyScope): boolean {
  return principal.scopes.includes(scope);
}
