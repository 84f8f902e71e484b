import { describe, expect, it } from 'vitest';
import type { UsageEvent } from '@switchboard/contracts';
import { DailyMessageLimitReached } from '../account/errors.js';
import { specFor } from '@switchboard/service-kit/testing';
import { encodeTime } from 'ulid';
import { decide, EarlierUnitNeeded, resetsAtOf } from './decide.js';
import type { EarlierUnit, UsageCommand } from './decide.js';
import { evolve, evolveKeeping } from './evolve.js';
import { initialState } from './state.js';
import type { DailyUsageState } from './state.js';

const given = specFor<UsageCommand, DailyUsageState, UsageEvent>({ decide: decide, evolve: evolve, initial: initialState });
const accountId = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const day = '2026-11-21';
const now = new Date('2026-11-21T23:59:59.999Z');
const at = now.toISOString();
/** Message n, minted n seconds after noon of the day (ids carry their minting time). */
const mintedAt = (n: number) => Date.parse('2026-11-21T12:00:00.000Z') + n * 1_000;
const msg = (n: number) => `msg_${encodeTime(mintedAt(n), 10)}${'0'.repeat(16)}`;
const reservedEv = (n: number, limit: number | null = 50): UsageEvent => ({
  type: 'DailyQuotaReserved', version: 1, data: { accountId, day, messageId: msg(n), limit, reservedAt: at },
});
const refundedEv = (n: number): UsageEvent => ({ type: 'DailyQuotaRefunded', version: 1, data: { accountId, day, messageId: msg(n), refundedAt: at } });
const reserve = (n: number, limit: number | null = 50): UsageCommand => ({ type: 'ReserveUnit', accountId, day, messageId: msg(n), limit, now });
const refund = (n: number): UsageCommand => ({ type: 'RefundUnit', accountId, day, messageId: msg(n), now });
const units = (count: number, limit: number | null) => Array.from({ length: count }, (_, i) => reservedEv(i, limit));

describe('daily message units', () => {
  it.each([
    ['free', 50],
    ['basic', 1_000],
    ['premium', 10_000],
  ] as const)('%s grants exactly %i units a day, then DAILY_MESSAGE_LIMIT_REACHED {limit, used, resetsAt}', (_plan, limit) => {
    const history = units(limit, limit);
    given(history.slice(0, -1)).when(reserve(limit - 1, limit)).then([reservedEv(limit - 1, limit)]);
    given(history)
      .when(reserve(limit, limit))
      .thenThrows(DailyMessageLimitReached, {
        code: 'DAILY_MESSAGE_LIMIT_REACHED',
        details: { limit, used: limit, resetsAt: '2026-11-22T00:00:00.000Z' },
      });
  });
  it('unlimited (enterprise, limit null) grants the 20,001st unit', () => {
    given(units(20_000, null)).when(reserve(20_000, null)).then([reservedEv(20_000, null)]);
  });
  it('is idempotent per message id: a retry takes no second unit, even on a full day', () => {
    given(units(50, 50)).when(reserve(3)).then([]);
  });
  it('refunds a reserved unit once, which frees it for another message', () => {
    given(units(50, 50)).when(refund(7)).then([refundedEv(7)]);
    given([...units(50, 50), refundedEv(7)]).when(reserve(99)).then([reservedEv(99)]);
    given([...units(2, 50), refundedEv(1)]).when(refund(1)).then([]);
  });
  it('refunds nothing for a message that never reserved a unit on that day', () => {
    given(units(2, 50)).when(refund(42)).then([]);
  });
  it('never reserves again for a refunded message', () => {
    given([reservedEv(1), refundedEv(1)]).when(reserve(1)).then([]);
  });
  it('uses the limit of the plan in force at the request (a plan change applies to the next one)', () => {
    // 50 used under free; the account moved to basic: the next request brings limit 1000.
    given(units(50, 50)).when(reserve(50, 1_000)).then([reservedEv(50, 1_000)]);
    given(units(60, 1_000)).when(reserve(60, 50)).thenThrows(DailyMessageLimitReached, { details: { limit: 50, used: 60 } });
  });
  it('resets at 00:00 UTC of the next day, across month and year ends', () => {
    given([]).when(reserve(1)).then([reservedEv(1)]);
    expect(resetsAtOf('2026-12-31')).toBe('2027-01-01T00:00:00.000Z');
    expect(resetsAtOf('2026-02-28')).toBe('2026-03-01T00:00:00.000Z');
  });
});

describe('a busy day in bounded memory', () => {
  // Holding 2 ids at least: at 5 held, the 3 seen first are let go.
  const keepingTwo = specFor<UsageCommand, DailyUsageState, UsageEvent>({ decide, evolve: evolveKeeping(2), initial: initialState });
  const fiveReserved = [1, 2, 3, 4, 5].map((n) => reservedEv(n));
  const told = (command: UsageCommand, earlier: EarlierUnit): UsageCommand => ({ ...command, earlier });

  it('lets the ids seen first go and still counts every unit', () => {
    keepingTwo(fiveReserved).when(reserve(6)).thenState({ status: 'counting', used: 6, forgottenThrough: mintedAt(3) });
    const state = fiveReserved.reduce(evolveKeeping(2), initialState);
    expect(state.status === 'counting' && [...state.units.keys()]).toEqual([msg(4), msg(5)]);
  });
  it('reserves an id minted after every forgotten one without asking the stream', () => {
    keepingTwo(fiveReserved).when(reserve(6)).then([reservedEv(6)]);
  });
  it('asks what the stream says of an id it may have let go, and decides on the answer', () => {
    keepingTwo(fiveReserved).when(reserve(2)).thenThrows(EarlierUnitNeeded);
    keepingTwo(fiveReserved).when(refund(1)).thenThrows(EarlierUnitNeeded);
    keepingTwo(fiveReserved).when(told(reserve(2), 'reserved')).then([]);
    keepingTwo(fiveReserved).when(told(reserve(2), 'refunded')).then([]);
    keepingTwo(fiveReserved).when(told(refund(1), 'reserved')).then([refundedEv(1)]);
    keepingTwo(fiveReserved).when(told(refund(1), 'refunded')).then([]);
    // Minted before the forgotten ones but never reserved (a retry after a crash before quota).
    keepingTwo(fiveReserved).when(told(reserve(2.5), 'none')).then([reservedEv(2.5)]);
  });
  it('trusts what it holds over the answer it was given', () => {
    keepingTwo(fiveReserved).when(told(reserve(5), 'none')).then([]);
  });
  it('keeps the limit over forgotten units', () => {
    const fullDay = [1, 2, 3, 4, 5].map((n) => reservedEv(n, 5));
    keepingTwo(fullDay).when(reserve(6, 5)).thenThrows(DailyMessageLimitReached, { details: { limit: 5, used: 5 } });
    keepingTwo([...fullDay, refundedEv(1)]).when(reserve(6, 5)).then([reservedEv(6, 5)]);
  });
});
