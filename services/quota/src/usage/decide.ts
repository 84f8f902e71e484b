import { nextUtcMidnight } from '@switchboard/contracts';
import type { AccountId, MessageId, UsageEvent, UtcDay } from '@switchboard/contracts';
import { DailyMessageLimitReached } from '../account/errors.js';
import { unitOf, usedUnits } from './state.js';
import type { DailyUsageState, UnitStatus } from './state.js';

/**
 * Commands on one day's usage stream. `limit` is the plan in force when the request arrived
 * (read from the account stream by the handler); `null` is unlimited. `earlier` is what the stream
 * says of the message's unit, looked up by the handler when the state let the id go.
 */
export type UsageCommand =
  | { type: 'ReserveUnit'; accountId: AccountId; day: UtcDay; messageId: MessageId; limit: number | null; now: Date; earlier?: EarlierUnit }
  | { type: 'RefundUnit'; accountId: AccountId; day: UtcDay; messageId: MessageId; now: Date; earlier?: EarlierUnit };

export type EarlierUnit = UnitStatus | 'none';

/**
 * The state let this message's id go and the command does not say what the stream knows of it:
 * the handler looks it up and decides again with `earlier`. Not a client's error.
 */
export class EarlierUnitNeeded extends Error {
  constructor(readonly messageId: MessageId) {
    super(`The unit of ${messageId} is no longer held in memory; its stream says what happened to it.`);
  }
}

/** When the counter of `day` resets: 00:00 UTC of the next day. */
export function resetsAtOf(day: UtcDay): string {
  return nextUtcMidnight(new Date(`${day}T00:00:00.000Z`)).toISOString();
}

export function decide(command: UsageCommand, state: DailyUsageState): UsageEvent[] {
  const { accountId, day, messageId, now } = command;
  const known = unitOf(state, messageId);
  const earlier = known === 'forgotten' ? command.earlier : known;
  if (earlier === undefined) throw new EarlierUnitNeeded(messageId);
  switch (command.type) {
    case 'ReserveUnit': {
      // A retried reservation takes nothing; a refunded message never takes a unit again.
      if (earlier !== 'none') return [];
      const used = usedUnits(state);
      if (command.limit !== null && used >= command.limit) {
        throw new DailyMessageLimitReached(command.limit, used, resetsAtOf(day));
      }
      const data = { accountId, day, messageId, limit: command.limit, reservedAt: now.toISOString() };
      return [{ type: 'DailyQuotaReserved', version: 1, data }];
    }
    case 'RefundUnit':
      if (earlier !== 'reserved') return [];
      return [{ type: 'DailyQuotaRefunded', version: 1, data: { accountId, day, messageId, refundedAt: now.toISOString() } }];
  }
}
