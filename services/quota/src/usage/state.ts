import { mintedAtOf } from '@switchboard/contracts';
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
  /** The fate of the day's recent message ids, in the order they were first seen (see `evolve`). */
  readonly units: ReadonlyMap<MessageId, UnitStatus>;
  /** Units `reserved` and not refunded. */
  readonly used: number;
  /**
   * Every message id let go of was minted at or before this time (epoch ms; -Infinity while
   * none was): an id minted later that `units` does not hold was never seen on this day.
   */
  readonly forgottenThrough: number;
}

export const initialState: DailyUsageState = { status: 'unused' };

export function usedUnits(state: DailyUsageState): number {
  return state.status === 'unused' ? 0 : state.used;
}

/**
 * What the state knows of a message's unit: its status, `none` when the day never saw the id, or
 * `forgotten` when it may have seen it and let it go (its stream knows).
 */
export function unitOf(state: DailyUsageState, messageId: MessageId): UnitStatus | 'none' | 'forgotten' {
  if (state.status === 'unused') return 'none';
  const status = state.units.get(messageId);
  if (status !== undefined) return status;
  if (state.forgottenThrough === -Infinity) return 'none';
  return (mintedAtOf(messageId) ?? -Infinity) > state.forgottenThrough ? 'none' : 'forgotten';
}
