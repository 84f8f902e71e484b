/**
 * Waits before each retry of a delivery (README § Webhooks): first retries within seconds, then
 * spread over more than 24 h: 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 10 h
 * (25 h 42 min 35 s in all, 11 attempts). `SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE_MS` replaces it
 * (tests, trials).
 */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5, 30, 120, 600, 1800, 3600, 7200, 14_400, 28_800, 36_000].map((s) => s * 1000);

/** Jitter only lengthens a wait (by up to 20 %), so the whole schedule never shrinks below 24 h. */
const JITTER = 0.2;

/**
 * When to try again after `attempts` failed attempts, or null when the schedule is spent and the
 * delivery fails. `random` in [0, 1) spreads retries of many deliveries apart.
 */
export function nextAttemptAt(schedule: readonly number[], attempts: number, now: number, random: number): number | null {
  const wait = schedule[attempts - 1];
  if (wait === undefined) return null;
  return now + Math.round(wait * (1 + JITTER * random));
}

/** `SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE_MS`: comma-separated milliseconds, e.g. `100,100,100`. */
export function parseRetrySchedule(text: string | undefined): readonly number[] {
  if (text === undefined || text.trim() === '') return DEFAULT_RETRY_SCHEDULE_MS;
  const waits = text.split(',').map((part) => Number(part.trim()));
  if (waits.length === 0 || waits.some((w) => !Number.isInteger(w) || w < 0)) {
    throw new Error('SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE_MS must be comma-separated whole milliseconds');
  }
  return waits;
}
