import { nextUtcMidnight } from '@switchboard/contracts';
import type { AccountId, MessageId, UsageEvent, UtcDay } from '@switchboard/contracts';
import { DailyMessageLimitReached } from '../account/errors.js';
import { usedUnits } from './state.js';
import type { DailyUsageState } from './state.js';

/**
 * Commands on one day's usage stream. `limit` is the plan in force when the request arrived
 * (read from the account stream by the handler); `null` is unlimited.
 */
export type UsageCommand =
  | { type: 'ReserveUnit'; accountId: AccountId; day: UtcDay; messageId: MessageId; limit: number | null; now: Date }
  | { type: 'RefundUnit'; accountId: AccountId; day: UtcDay; messageId: MessageId; now: Date };

/** When the counter of `day` resets: 00:00 UTC of the next day. */
export function resetsAtOf(day: UtcDay): string {
  return nextUtcMidnight(new Date(`${day}T00:00:00.000Z`)).toISOString();
}

export function decide(command: UsageCommand, state: DailyUsageState): UsageEvent[] {
  const seen = state.status === 'counting' ? state.units.get(command.messageId) : undefined;
  const { accountId, day, messageId, now } = command;
  switch (command.type) {
    case 'ReserveUnit': {
      // A retried reservation takes nothing; a refunded message never takes a unit again.
      if (seen !== undefined) return [];
      const used = usedUnits(state);
      if (command.limit !== null && used >= command.limit) {
        throw new DailyMessageLimitReached(command.limit, used, resetsAtOf(day));
      }
      const data = { accountId, day, messageId, limit: command.limit, reservedAt: now.toISOString() };
      return [{ type: 'DailyQuotaReserved', version: 1, data }];
    }
    case 'RefundUnit':
      if (seen !== 'reserved') return [];
      return [{ type: 'DailyQuotaRefunded', version: 1, data: { accountId, day, messageId, refundedAt: now.toISOString() } }];
  }
}
