import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { quotaEventParser, STREAM_CATEGORY } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';
import type { Projection } from '@switchboard/service-kit';
import { toRawEvent } from '@switchboard/service-kit';

/**
 * Account stream -> `quota_accounts` (plan, slots held) and `quota_keys` (hash -> account, scopes,
 * revocation). The runner applies each event exactly once, so counters are plain increments.
 */
export function accountsProjection(db: DatabaseSync): Projection {
  const sql = statements(db);
  return {
    name: 'quota-accounts-v1',
    category: STREAM_CATEGORY.account,
    apply(recorded: RecordedEvent): void {
      const event = quotaEventParser.decode(toRawEvent(recorded));
      switch (event.type) {
        case 'AccountOpened': {
          const { accountId, name, plan, openedAt } = event.data;
          sql.open.run(accountId, name, plan, openedAt, recorded.position);
          return;
        }
        case 'PlanChanged':
          sql.plan.run(event.data.to, event.data.accountId);
          return;
        case 'AccountRenamed':
          sql.rename.run(event.data.to, event.data.accountId);
          return;
        case 'AccountClosed':
          sql.close.run(event.data.closedAt, event.data.accountId);
          return;
        case 'ApiKeyIssued': {
          const { keyHash, keyId, accountId, scopes, issuedAt } = event.data;
          sql.key.run(keyHash, keyId, accountId, JSON.stringify(scopes), issuedAt);
          return;
        }
        case 'ApiKeyRevoked':
          sql.revoke.run(event.data.revokedAt, event.data.keyId);
          return;
        case 'SessionSlotReserved':
          sql.slots.run(1, event.data.accountId);
          return;
        case 'SessionSlotReleased':
          sql.slots.run(-1, event.data.accountId);
          return;
        default:
          return;
      }
    },
  };
}

function statements(db: DatabaseSync): Record<'open' | 'plan' | 'rename' | 'close' | 'key' | 'revoke' | 'slots', StatementSync> {
  return {
    open: db.prepare('INSERT INTO quota_accounts (account_id, name, plan, opened_at, position) VALUES (?, ?, ?, ?, ?)'),
    plan: db.prepare('UPDATE quota_accounts SET plan = ? WHERE account_id = ?'),
    rename: db.prepare('UPDATE quota_accounts SET name = ? WHERE account_id = ?'),
    close: db.prepare('UPDATE quota_accounts SET closed_at = ? WHERE account_id = ?'),
    // A hash registered twice (two writers racing with the same key) keeps its first owner.
    key: db.prepare('INSERT INTO quota_keys (key_hash, key_id, account_id, scopes, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING'),
    revoke: db.prepare('UPDATE quota_keys SET revoked_at = ? WHERE key_id = ? AND revoked_at IS NULL'),
    slots: db.prepare('UPDATE quota_accounts SET active_sessions = active_sessions + ? WHERE account_id = ?'),
  };
}
