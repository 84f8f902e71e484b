import type { AccountId, ApiKeyScope, KeyId, Plan, SessionId } from '@switchboard/contracts';

/** A key as the account remembers it: scopes and revocation (the hash lives in the event only). */
export interface IssuedKey {
  readonly scopes: readonly ApiKeyScope[];
  readonly revokedAt: string | null;
}

/** Slot of one session: `held` counts against the plan; `released` is final (ids never come back). */
export type SlotStatus = 'held' | 'released';

/** Account: the holder of keys, a plan, and the concurrent-session slots. */
export type Account = NotOpened | OpenAccount | ClosedAccount;

export interface NotOpened {
  readonly status: 'not_opened';
}

export interface OpenAccount {
  readonly status: 'open';
  readonly accountId: AccountId;
  readonly name: string | null;
  readonly plan: Plan;
  readonly keys: ReadonlyMap<KeyId, IssuedKey>;
  readonly slots: ReadonlyMap<SessionId, SlotStatus>;
  /** Slots `held`, kept alongside the map so a reservation need not count. */
  readonly slotsHeld: number;
}

/**
 * Closed for good: no new slot, key or change; what it held stays readable (its keys, all
 * revoked) and its slots can still be released as its sessions are deleted.
 */
export interface ClosedAccount extends Omit<OpenAccount, 'status'> {
  readonly status: 'closed';
  readonly closedAt: string;
}

/** An account that was opened, whether still open or closed since. */
export type ExistingAccount = OpenAccount | ClosedAccount;

export const initialState: Account = { status: 'not_opened' };
