import { describe, it } from 'vitest';
import type { AccountEvent, Plan } from '@switchboard/contracts';
import { specFor } from '@switchboard/service-kit/testing';
import { decide } from './decide.js';
import type { AccountCommand } from './decide.js';
import { AccountAlreadyOpened, AccountIsClosed, AccountNotFound, KeyNotFound, SessionLimitReached } from './errors.js';
import { evolve } from './evolve.js';
import { initialState } from './state.js';
import type { Account } from './state.js';

const given = specFor<AccountCommand, Account, AccountEvent>({ decide: decide, evolve: evolve, initial: initialState });
const accountId = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const keyId = 'key_01JD8Z5X0A1B2C3D4E5F6G7H8J';
const keyHash = 'a'.repeat(64);
const now = new Date('2026-11-21T10:00:00.000Z');
const at = now.toISOString();
const ses = (n: number) => `ses_01JD8Z6Q9V4N2C3B5X7M1K0P${String(n).padStart(2, '0')}`;

const opened = (plan: Plan = 'free'): AccountEvent => ({ type: 'AccountOpened', version: 1, data: { accountId, name: 'Acme', plan, openedAt: at } });
const planChanged = (from: Plan, to: Plan): AccountEvent => ({ type: 'PlanChanged', version: 1, data: { accountId, from, to, changedAt: at } });
const keyIssued: AccountEvent = { type: 'ApiKeyIssued', version: 1, data: { accountId, keyId, keyHash, scopes: ['api'], issuedAt: at } };
const keyRevoked = (revokedAt = at): AccountEvent => ({ type: 'ApiKeyRevoked', version: 1, data: { accountId, keyId, revokedAt } });
const reserved = (n: number, limit: number | null = 1): AccountEvent => ({
  type: 'SessionSlotReserved', version: 1, data: { accountId, sessionId: ses(n), limit, reservedAt: at },
});
const released = (n: number): AccountEvent => ({ type: 'SessionSlotReleased', version: 1, data: { accountId, sessionId: ses(n), releasedAt: at } });
const reserve = (n: number): AccountCommand => ({ type: 'ReserveSlot', sessionId: ses(n), now });
const release = (n: number): AccountCommand => ({ type: 'ReleaseSlot', sessionId: ses(n), now });

describe('account: opening, plans and keys', () => {
  it('opens an account with its plan', () => {
    given([]).when({ type: 'OpenAccount', accountId, name: 'Acme', plan: 'free', now }).then([opened('free')]);
  });
  it('refuses to open an account twice', () => {
    given([opened()]).when({ type: 'OpenAccount', accountId, name: null, plan: 'basic', now }).thenThrows(AccountAlreadyOpened);
  });
  it('answers ACCOUNT_NOT_FOUND for any command on an account never opened', () => {
    given([]).when({ type: 'UpdateAccount', plan: 'basic', now }).thenThrows(AccountNotFound, { code: 'ACCOUNT_NOT_FOUND' });
    given([]).when(reserve(1)).thenThrows(AccountNotFound);
  });
  it('changes the plan, recording from and to; the same plan again records nothing', () => {
    given([opened('free')]).when({ type: 'UpdateAccount', plan: 'premium', now }).then([planChanged('free', 'premium')]);
    given([opened('free'), planChanged('free', 'premium')]).when({ type: 'UpdateAccount', plan: 'premium', now }).then([]);
  });
  it('renames, recording from and to; the same name again records nothing; an unknown account cannot be renamed', () => {
    const renamed: AccountEvent = { type: 'AccountRenamed', version: 1, data: { accountId, from: 'Acme', to: 'Acme Support', renamedAt: now.toISOString() } };
    given([opened()]).when({ type: 'UpdateAccount', name: 'Acme Support', now }).then([renamed]);
    given([opened(), renamed]).when({ type: 'UpdateAccount', name: 'Acme Support', now }).then([]);
    given([]).when({ type: 'UpdateAccount', name: 'x', now }).thenThrows(AccountNotFound);
    // Plan and name in one command: both facts, in one append.
    given([opened('free')]).when({ type: 'UpdateAccount', plan: 'premium', name: 'Acme Support', now }).then([planChanged('free', 'premium'), renamed]);
  });
  it('issues a key with its hash and scopes only', () => {
    given([opened()]).when({ type: 'IssueKey', keyId, keyHash, scopes: ['api'], now }).then([keyIssued]);
  });
  it('revokes a key once; revoking again keeps the first revocation', () => {
    given([opened(), keyIssued]).when({ type: 'RevokeKey', keyId, now }).then([keyRevoked()]);
    given([opened(), keyIssued, keyRevoked('2026-11-20T00:00:00.000Z')]).when({ type: 'RevokeKey', keyId, now }).then([]);
  });
  it('answers KEY_NOT_FOUND for a key the account never issued', () => {
    given([opened()]).when({ type: 'RevokeKey', keyId, now }).thenThrows(KeyNotFound, { code: 'KEY_NOT_FOUND' });
  });
});

describe('account: concurrent-session slots', () => {
  it.each([
    ['free', 1],
    ['basic', 5],
    ['premium', 20],
  ] as const)('%s allows exactly %i sessions, then SESSION_LIMIT_REACHED {limit, used}', (plan, limit) => {
    const full = [opened(plan), ...Array.from({ length: limit }, (_, i) => reserved(i, limit))];
    given(full.slice(0, -1)).when(reserve(limit - 1)).then([reserved(limit - 1, limit)]);
    given(full).when(reserve(limit)).thenThrows(SessionLimitReached, { code: 'SESSION_LIMIT_REACHED', details: { limit, used: limit } });
  });
  it('enterprise is unlimited: the 500th session is granted with limit null', () => {
    const many = Array.from({ length: 499 }, (_, i) => reserved(i, null));
    given([opened('enterprise'), ...many]).when(reserve(499)).then([reserved(499, null)]);
  });
  it('is idempotent per session id: a retried reservation records nothing and does not hit the limit', () => {
    given([opened('free'), reserved(1)]).when(reserve(1)).then([]);
  });
  it('releasing frees the slot for another session', () => {
    given([opened('free'), reserved(1)]).when(release(1)).then([released(1)]);
    given([opened('free'), reserved(1), released(1)]).when(reserve(2)).then([reserved(2)]);
  });
  it('releasing twice, or a session that never held a slot, records nothing', () => {
    given([opened('free'), reserved(1), released(1)]).when(release(1)).then([]);
    given([opened('free')]).when(release(7)).then([]);
  });
  it('a late duplicate reservation of a released session does not take a slot again', () => {
    given([opened('free'), reserved(1), released(1)]).when(reserve(1)).then([]);
  });
  it('a plan change applies to the next reservation, up or down', () => {
    given([opened('free'), reserved(1), planChanged('free', 'basic')]).when(reserve(2)).then([reserved(2, 5)]);
    const five = [1, 2, 3, 4, 5].map((n) => reserved(n, 5));
    given([opened('basic'), ...five, planChanged('basic', 'free'), released(5)])
      .when(reserve(6))
      .thenThrows(SessionLimitReached, { details: { limit: 1, used: 4 } });
  });
});

describe('account: closing', () => {
  const key2 = 'key_01JD8Z5X0A1B2C3D4E5F6G7H9K';
  const key2Issued: AccountEvent = { type: 'ApiKeyIssued', version: 1, data: { accountId, keyId: key2, keyHash: 'b'.repeat(64), scopes: ['admin'], issuedAt: at } };
  const closed = (closedAt = at): AccountEvent => ({ type: 'AccountClosed', version: 1, data: { accountId, closedAt } });
  const close: AccountCommand = { type: 'CloseAccount', now };
  const earlier = '2026-11-20T00:00:00.000Z';

  it('revokes every key still working, then records the closure, in one decision', () => {
    given([opened(), keyIssued, key2Issued]).when(close).then([
      keyRevoked(),
      { type: 'ApiKeyRevoked', version: 1, data: { accountId, keyId: key2, revokedAt: at } },
      closed(),
    ]);
    given([opened(), keyIssued]).when(close).thenState({ status: 'closed', closedAt: at, plan: 'free' });
  });
  it('leaves a key revoked before as it was; an account without keys just closes', () => {
    given([opened(), keyIssued, keyRevoked(earlier), key2Issued]).when(close).then([
      { type: 'ApiKeyRevoked', version: 1, data: { accountId, keyId: key2, revokedAt: at } },
      closed(),
    ]);
    given([opened()]).when(close).then([closed()]);
  });
  it('closing again records nothing (the first closedAt stands); an unknown account is ACCOUNT_NOT_FOUND', () => {
    given([opened(), keyIssued, keyRevoked(earlier), closed(earlier)]).when(close).then([]);
    given([]).when(close).thenThrows(AccountNotFound, { code: 'ACCOUNT_NOT_FOUND' });
  });
  it('refuses new sessions, keys, plan changes and renames with FORBIDDEN, naming the account and when it closed', () => {
    const history = [opened('basic'), keyIssued, keyRevoked(), closed(earlier)];
    const details = { accountId, closedAt: earlier };
    given(history).when(reserve(1)).thenThrows(AccountIsClosed, { code: 'FORBIDDEN', details });
    given(history).when({ type: 'IssueKey', keyId: key2, keyHash, scopes: ['api'], now }).thenThrows(AccountIsClosed, { code: 'FORBIDDEN' });
    given(history).when({ type: 'UpdateAccount', plan: 'premium', now }).thenThrows(AccountIsClosed, { code: 'FORBIDDEN' });
    given(history).when({ type: 'UpdateAccount', name: 'Acme again', now }).thenThrows(AccountIsClosed, { code: 'FORBIDDEN' });
  });
  it('is never opened again under its id', () => {
    given([opened(), closed()]).when({ type: 'OpenAccount', accountId, name: null, plan: 'free', now }).thenThrows(AccountAlreadyOpened);
  });
  it('still frees the slots of its sessions as they are deleted, once each', () => {
    const history = [opened('basic'), reserved(1, 5), reserved(2, 5), closed()];
    given(history).when(release(1)).then([released(1)]);
    given([...history, released(1)]).when(release(1)).then([]);
    given([...history, released(1)]).when(release(2)).then([released(2)]);
  });
  it('answers a revocation of a key it revoked on closing with nothing new; an unknown key is KEY_NOT_FOUND', () => {
    given([opened(), keyIssued, keyRevoked(), closed()]).when({ type: 'RevokeKey', keyId, now }).then([]);
    given([opened(), closed()]).when({ type: 'RevokeKey', keyId, now }).thenThrows(KeyNotFound);
  });
});
