import { mintedAtOf } from '@switchboard/contracts';
import type { MessageId, UsageEvent } from '@switchboard/contracts';
import type { DailyUsageState, UnitStatus } from './state.js';

/**
 * Message ids a day's state holds at least. Retries of a reservation and refunds of a failed send
 * come within seconds or minutes of it, so they find their id here; an older one is looked up in
 * the stream (`forgotten`). Without a bound a busy day held every id of the day in memory.
 */
export const UNITS_KEPT = 4_096;

/**
 * Folds one usage-stream event. No I/O, no clock; but the unit map is handed over, not copied:
 * streams are folded linearly and a state is never used again once evolved, and copying the map
 * per event made folding a busy day quadratic (20,000 units took over 30 s).
 */
export const evolve = evolveKeeping(UNITS_KEPT);

/**
 * `evolve` holding at least `kept` message ids: once twice as many are held, the oldest-seen are
 * let go down to `kept`, and `forgottenThrough` moves to the latest minting time among them.
 */
export function evolveKeeping(kept: number) {
  return (state: DailyUsageState, event: UsageEvent): DailyUsageState => {
    const counting = state.status === 'counting' ? state : undefined;
    const units = (counting?.units as Map<MessageId, UnitStatus> | undefined) ?? new Map<MessageId, UnitStatus>();
    const used = counting?.used ?? 0;
    const { messageId } = event.data;
    const status: UnitStatus = event.type === 'DailyQuotaReserved' ? 'reserved' : 'refunded';
    units.set(messageId, status);
    const before = counting?.forgottenThrough ?? -Infinity;
    const forgottenThrough = units.size > 2 * kept ? Math.max(before, letGoOldest(units, kept)) : before;
    return { status: 'counting', units, used: used + (status === 'reserved' ? 1 : -1), forgottenThrough };
  };
}

/** Deletes the ids seen first until `kept` are left; returns the latest minting time among them. */
function letGoOldest(units: Map<MessageId, UnitStatus>, kept: number): number {
  let through = -Infinity;
  let excess = units.size - kept;
  for (const id of units.keys()) {
    if (excess-- === 0) break;
    // An id without a ULID time could be anyone's: nothing after it is trusted as unseen.
    through = Math.max(through, mintedAtOf(id) ?? Infinity);
    units.delete(id);
  }
  return through;
}
