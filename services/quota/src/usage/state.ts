import type { MessageId } from '@switchboard/contracts';

/** A unit's fate: `reserved` counts against the day; `refunded` is final (never reserved again). */
export type UnitStatus = 'reserved' | 'refunded';

/** DailyUsage: the message units one account used on one UTC day (stream `usage-acc_…-<day>`). */
export type DailyUsageState = UnusedDay | CountingDay;

export interface UnusedDay {
  readonly status: 'unused';
}

export interface CountingDay {
  readonly status: 'counting';
  readonly units: ReadonlyMap<MessageId, UnitStatus>;
  /** Units `reserved` and not refunded. */
  readonly used: number;
}

export const initialState: DailyUsageState = { status: 'unused' };

export function usedUnits(state: DailyUsageState): number {
  return state.status === 'unused' ? 0 : state.used;
}
