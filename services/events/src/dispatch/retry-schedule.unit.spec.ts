import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_MS, nextAttemptAt, parseRetrySchedule } from './retry-schedule.js';

describe('webhook retry schedule', () => {
  it('retries within seconds first, then spreads ten retries over more than 24 hours', () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS.slice(0, 2)).toEqual([5_000, 30_000]);
    expect(DEFAULT_RETRY_SCHEDULE_MS).toHaveLength(10);
    const total = DEFAULT_RETRY_SCHEDULE_MS.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThanOrEqual(24 * 3600_000);
    // Each wait at least as long as the one before: backoff, never a burst.
    DEFAULT_RETRY_SCHEDULE_MS.slice(1).forEach((wait, i) => expect(wait).toBeGreaterThanOrEqual(DEFAULT_RETRY_SCHEDULE_MS[i]!));
  });

  it('waits the scheduled time plus up to 20 % jitter, and gives up after the last one', () => {
    expect(nextAttemptAt(DEFAULT_RETRY_SCHEDULE_MS, 1, 1_000, 0)).toBe(6_000);
    expect(nextAttemptAt(DEFAULT_RETRY_SCHEDULE_MS, 1, 1_000, 0.999)).toBe(1_000 + Math.round(5_000 * 1.1998));
    expect(nextAttemptAt(DEFAULT_RETRY_SCHEDULE_MS, 10, 0, 0)).toBe(36_000_000);
    expect(nextAttemptAt(DEFAULT_RETRY_SCHEDULE_MS, 11, 0, 0)).toBeNull();
  });

  it('reads a schedule from the environment, and refuses a bad one', () => {
    expect(parseRetrySchedule('100, 200,0')).toEqual([100, 200, 0]);
    expect(parseRetrySchedule(undefined)).toBe(DEFAULT_RETRY_SCHEDULE_MS);
    expect(() => parseRetrySchedule('1s,2s')).toThrow(/milliseconds/);
    expect(() => parseRetrySchedule('-1')).toThrow(/milliseconds/);
  });
});
