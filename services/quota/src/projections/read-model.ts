import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { ApiKeyScopes } from '@switchboard/contracts';
import type { AccountId, AccountView, ApiKeyView, KeyId, Plan, UtcDay } from '@switchboard/contracts';

export interface KeyRecord extends ApiKeyView {
  plan: Plan;
}

interface AccountRow { account_id: string; name: string | null; plan: string; active_sessions: number; closed_at: string | null; used: number | null }
interface KeyRow { key_id: string; account_id: string; scopes: string; created_at: string; revoked_at: string | null; plan: string }

/** Queries over the quota read models (the tables of schema.ts). */
export class QuotaReadModel {
  private readonly sql: Record<'keyByHash' | 'keyById' | 'keysOf' | 'account' | 'accounts' | 'count', StatementSync>;

  constructor(db: DatabaseSync) {
    const keyColumns = 'k.key_id, k.account_id, k.scopes, k.created_at, k.revoked_at, a.plan';
    const accountColumns = 'a.account_id, a.name, a.plan, a.active_sessions, a.closed_at, u.used';
    const usageJoin = 'LEFT JOIN quota_daily_usage u ON u.account_id = a.account_id AND u.day = ?';
    this.sql = {
      keyByHash: db.prepare(`SELECT ${keyColumns} FROM quota_keys k JOIN quota_accounts a USING (account_id) WHERE k.key_hash = ?`),
      keyById: db.prepare(`SELECT ${keyColumns} FROM quota_keys k JOIN quota_accounts a USING (account_id) WHERE k.key_id = ?`),
      keysOf: db.prepare(`SELECT ${keyColumns} FROM quota_keys k JOIN quota_accounts a USING (account_id) WHERE k.account_id = ? ORDER BY k.key_id`),
      account: db.prepare(`SELECT ${accountColumns} FROM quota_accounts a ${usageJoin} WHERE a.account_id = ?`),
      accounts: db.prepare(`SELECT ${accountColumns} FROM quota_accounts a ${usageJoin} ORDER BY a.position LIMIT ? OFFSET ?`),
      count: db.prepare('SELECT COUNT(*) AS total FROM quota_accounts'),
    };
  }

  keyByHash(keyHash: string): KeyRecord | undefined {
    const row = this.sql.keyByHash.get(keyHash) as KeyRow | undefined;
    return row && toKey(row);
  }

  keyById(keyId: KeyId): KeyRecord | undefined {
    const row = this.sql.keyById.get(keyId) as KeyRow | undefined;
    return row && toKey(row);
  }

  keysOf(accountId: AccountId): KeyRecord[] {
    return (this.sql.keysOf.all(accountId) as unknown as KeyRow[]).map(toKey);
  }

  /** The account with its slots held and the units used on `today`. */
  account(accountId: AccountId, today: UtcDay): AccountView | undefined {
    const row = this.sql.account.get(today, accountId) as AccountRow | undefined;
    return row && toAccount(row);
  }

  /** Oldest first. */
  accounts(today: UtcDay, limit: number, offset: number): { accounts: AccountView[]; total: number } {
    const rows = this.sql.accounts.all(today, limit, offset) as unknown as AccountRow[];
    const { total } = this.sql.count.get() as { total: number };
    return { accounts: rows.map(toAccount), total };
  }
}

function toKey(row: KeyRow): KeyRecord {
  return {
    keyId: row.key_id,
    accountId: row.account_id,
    scopes: ApiKeyScopes.parse(JSON.parse(row.scopes)),
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    plan: row.plan as Plan,
  };
}

function toAccount(row: AccountRow): AccountView {
  return {
    accountId: row.account_id,
    name: row.name,
    plan: row.plan as Plan,
    activeSessions: row.active_sessions,
    messagesToday: row.used ?? 0,
    closedAt: row.closed_at,
  };
}
