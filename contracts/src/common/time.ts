import { z } from 'zod';

/** Timestamp: ISO 8601 in UTC with a trailing "Z" (offsets are refused so values sort as strings). */
export const IsoTimestamp = z.iso
  .datetime({ message: 'must be an ISO 8601 UTC timestamp, e.g. "2026-11-21T10:15:30.000Z"' })
  .meta({ description: 'A time in ISO 8601, UTC.', example: '2026-11-21T10:15:30.000Z' });
export type IsoTimestamp = z.infer<typeof IsoTimestamp>;

/** UTC day: `YYYY-MM-DD`; the unit daily quotas are counted in (resets at 00:00 UTC). */
export const UtcDay = z.iso.date().meta({ description: 'A UTC day (YYYY-MM-DD).', example: '2026-11-21' });
export type UtcDay = z.infer<typeof UtcDay>;

/** The UTC day a timestamp falls on. Pure helper so every service buckets usage identically. */
export function utcDayOf(at: Date): UtcDay {
  return at.toISOString().slice(0, 10);
}

/** Start of the next UTC day: when a daily quota resets. */
export function nextUtcMidnight(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
}
