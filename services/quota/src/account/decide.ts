import { PLAN_LIMITS } from '@switchboard/contracts';
import type {
  AccountEvent, AccountId, ApiKeyHash, ApiKeyScope, KeyId, Plan, SessionId,
} from '@switchboard/contracts';
import { AccountAlreadyOpened, AccountIsClosed, AccountNotFound, KeyNotFound, SessionLimitReached } from './errors.js';
import type { Account, ExistingAccount, OpenAccount } from './state.js';

/** Commands on one account stream. Ids and times come from the caller: `decide` has no clock. */
export type AccountCommand =
  | { type: 'OpenAccount'; accountId: AccountId; name: string | null; plan: Plan; now: Date }
  /** The admin PATCH and `switchboard accounts set-plan`: plan and name changed together, in one append. */
  | { type: 'UpdateAccount'; plan?: Plan | undefined; name?: string | undefined; now: Date }
  | { type: 'IssueKey'; keyId: KeyId; keyHash: ApiKeyHash; scopes: readonly ApiKeyScope[]; now: Date }
  | { type: 'RevokeKey'; keyId: KeyId; now: Date }
  | { type: 'ReserveSlot'; sessionId: SessionId; now: Date }
  | { type: 'ReleaseSlot'; sessionId: SessionId; now: Date }
  /** Revokes every key still working and records AccountClosed, in one append. */
  | { type: 'CloseAccount'; now: Date };

type OpenOnly = Extract<AccountCommand, { type: 'UpdateAccount' | 'IssueKey' | 'ReserveSlot' }>;

export function decide(command: AccountCommand, state: Account): AccountEvent[] {
  if (command.type === 'OpenAccount') return openAccount(command, state);
  if (state.status === 'not_opened') throw new AccountNotFound();
  switch (command.type) {
    // What a closed account still takes: its slots freed as its sessions are deleted, a
    // revocation (a no-op: closing revoked every key), and closing again (a no-op).
    case 'ReleaseSlot':
      return releaseSlot(command, state);
    case 'RevokeKey':
      return revokeKey(command, state);
    case 'CloseAccount':
      return state.status === 'closed' ? [] : closeAccount(command.now, state);
    default:
      if (state.status === 'closed') throw new AccountIsClosed(state.accountId, state.closedAt);
      return decideOpen(command, state);
  }
}

function decideOpen(command: OpenOnly, state: OpenAccount): AccountEvent[] {
  switch (command.type) {
    case 'UpdateAccount':
      return [
        ...(command.plan === undefined ? [] : changePlan(command.plan, command.now, state)),
        ...(command.name === undefined ? [] : rename(command.name, command.now, state)),
      ];
    case 'IssueKey':
      return issueKey(command, state);
    case 'ReserveSlot':
      return reserveSlot(command, state);
  }
}

function openAccount(command: Extract<AccountCommand, { type: 'OpenAccount' }>, state: Account): AccountEvent[] {
  // A closed account is not opened again either: its id stays its history's.
  if (state.status !== 'not_opened') throw new AccountAlreadyOpened();
  const { accountId, name, plan, now } = command;
  return [{ type: 'AccountOpened', version: 1, data: { accountId, name, plan, openedAt: now.toISOString() } }];
}

function changePlan(plan: Plan, now: Date, state: OpenAccount): AccountEvent[] {
  // Setting the plan it already has is a no-op, so a retried PATCH records nothing twice.
  if (plan === state.plan) return [];
  const data = { accountId: state.accountId, from: state.plan, to: plan, changedAt: now.toISOString() };
  return [{ type: 'PlanChanged', version: 1, data }];
}

function rename(name: string, now: Date, state: OpenAccount): AccountEvent[] {
  // The same name again records nothing, so a retried PATCH is harmless.
  if (name === state.name) return [];
  return [{ type: 'AccountRenamed', version: 1, data: { accountId: state.accountId, from: state.name, to: name, renamedAt: now.toISOString() } }];
}

function issueKey(command: Extract<AccountCommand, { type: 'IssueKey' }>, state: OpenAccount): AccountEvent[] {
  if (state.keys.has(command.keyId)) return [];
  const { keyId, keyHash, scopes, now } = command;
  const data = { accountId: state.accountId, keyId, keyHash, scopes: [...scopes], issuedAt: now.toISOString() };
  return [{ type: 'ApiKeyIssued', version: 1, data }];
}

function revokeKey(command: Extract<AccountCommand, { type: 'RevokeKey' }>, state: ExistingAccount): AccountEvent[] {
  const key = state.keys.get(command.keyId);
  if (!key) throw new KeyNotFound();
  // Revoking twice keeps the first revocation (the reply shows its original time).
  if (key.revokedAt !== null) return [];
  return [revoked(state.accountId, command.keyId, command.now)];
}

/**
 * The keys first (each as its own ApiKeyRevoked, the fact gateways already drop keys on), then
 * the closure: one append, so no key outlives the account, even for a moment.
 */
function closeAccount(now: Date, state: OpenAccount): AccountEvent[] {
  const working = [...state.keys].filter(([, key]) => key.revokedAt === null).map(([keyId]) => keyId);
  const closed: AccountEvent = { type: 'AccountClosed', version: 1, data: { accountId: state.accountId, closedAt: now.toISOString() } };
  return [...working.map((keyId) => revoked(state.accountId, keyId, now)), closed];
}

function revoked(accountId: AccountId, keyId: KeyId, now: Date): AccountEvent {
  return { type: 'ApiKeyRevoked', version: 1, data: { accountId, keyId, revokedAt: now.toISOString() } };
}

function reserveSlot(command: Extract<AccountCommand, { type: 'ReserveSlot' }>, state: OpenAccount): AccountEvent[] {
  // Held: a retry of the same reservation. Released: a late duplicate must not re-take a slot.
  if (state.slots.has(command.sessionId)) return [];
  const limit = PLAN_LIMITS[state.plan].maxSessions;
  if (limit !== null && state.slotsHeld >= limit) throw new SessionLimitReached(limit, state.slotsHeld);
  const data = { accountId: state.accountId, sessionId: command.sessionId, limit, reservedAt: command.now.toISOString() };
  return [{ type: 'SessionSlotReserved', version: 1, data }];
}

function releaseSlot(command: Extract<AccountCommand, { type: 'ReleaseSlot' }>, state: ExistingAccount): AccountEvent[] {
  if (state.slots.get(command.sessionId) !== 'held') return [];
  const data = { accountId: state.accountId, sessionId: command.sessionId, releasedAt: command.now.toISOString() };
  return [{ type: 'SessionSlotReleased', version: 1, data }];
}
