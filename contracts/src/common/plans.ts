import { z } from 'zod';

/** Plan: the subscription tier of an account; it sets the session and daily message limits. */
export const Plan = z
  .enum(['free', 'basic', 'premium', 'enterprise'])
  .meta({ description: 'The plan, which sets the concurrent sessions and messages per UTC day.', example: 'basic' });
export type Plan = z.infer<typeof Plan>;

/** `null` means unlimited. */
export interface PlanLimits {
  readonly maxSessions: number | null;
  readonly messagesPerDay: number | null;
}

/** The spec's Limits tables. Concurrent sessions are those `pending` or `connected`. */
export const PLAN_LIMITS: Readonly<Record<Plan, PlanLimits>> = {
  free: { maxSessions: 1, messagesPerDay: 50 },
  basic: { maxSessions: 5, messagesPerDay: 1_000 },
  premium: { maxSessions: 20, messagesPerDay: 10_000 },
  enterprise: { maxSessions: null, messagesPerDay: null },
};
