import { z } from 'zod';
import { IsoTimestamp } from '../common/time.js';

/**
 * Structured `details` for the codes that carry them. The envelope itself accepts any array or
 * object so a new detail never breaks an old client parser.
 */

/** One validation problem: dotted path into the input (`buttons.1.text`, `""` for the root). */
export const ValidationIssue = z.object({ path: z.string(), message: z.string() });
export type ValidationIssue = z.infer<typeof ValidationIssue>;

export const ValidationDetails = z.array(ValidationIssue).min(1);
export type ValidationDetails = z.infer<typeof ValidationDetails>;

/** `SESSION_NOT_CONNECTED`: the session's current status. */
export const SessionNotConnectedDetails = z.object({ status: z.string() });
export type SessionNotConnectedDetails = z.infer<typeof SessionNotConnectedDetails>;

/** `SESSION_LIMIT_REACHED`: the plan's limit and the slots in use. */
export const SessionLimitDetails = z.object({ limit: z.number().int().min(0), used: z.number().int().min(0) });
export type SessionLimitDetails = z.infer<typeof SessionLimitDetails>;

/** `DAILY_MESSAGE_LIMIT_REACHED`: limit, used today, and when the counter resets (00:00 UTC). */
export const DailyLimitDetails = z.object({
  limit: z.number().int().min(0),
  used: z.number().int().min(0),
  resetsAt: IsoTimestamp,
});
export type DailyLimitDetails = z.infer<typeof DailyLimitDetails>;

/**
 * `PAYLOAD_TOO_LARGE` and `MEDIA_TOO_LARGE`: the limit and, when known, the size, in bytes;
 * `mediaType` names whose limit it is (media only).
 */
export const SizeLimitDetails = z.object({
  limit: z.number().int().min(0),
  size: z.number().int().min(0).optional(),
  mediaType: z.string().optional(),
});
export type SizeLimitDetails = z.infer<typeof SizeLimitDetails>;

/** Anything a code may attach: validation paths, quota figures, a status. */
export const ErrorDetails = z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]);
export type ErrorDetails = z.infer<typeof ErrorDetails>;

