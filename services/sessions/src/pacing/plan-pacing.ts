import { QuotaSubjects } from '@switchboard/contracts';
import type { Plan } from '@switchboard/contracts';
import { callService } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import type { Logger } from '@switchboard/telemetry';
import { BoundedMap } from '../chat/bounded-map.js';
import type { PacingSettings } from './pacing-rules.js';

/** How long an account's plan is taken as known: a plan change paces from the next minute. */
const PLAN_TTL_MS = 60_000;
const QUOTA_TIMEOUT_MS = 5_000;

/**
 * The pacing of an account's plan. The plan lives in the quota service and is asked for over
 * the bus, at most once a minute per account; when all plans pace alike (the defaults, or `0`
 * everywhere) nothing is asked at all. Unreachable quota: the last plan known, else the strictest.
 */
export class PlanPacing {
  private readonly plans = new BoundedMap<string, Plan>(10_000, PLAN_TTL_MS);
  private readonly lastKnown = new BoundedMap<string, Plan>(10_000);
  private readonly uniform: PacingSettings | undefined;

  constructor(
    private readonly byPlan: Readonly<Record<Plan, PacingSettings>>,
    private readonly bus: Bus,
    private readonly logger?: Logger,
  ) {
    const all = Object.values(byPlan);
    const same = all.every((s) => s.gapMs === all[0]!.gapMs && s.newContactGapMs === all[0]!.newContactGapMs);
    this.uniform = same ? all[0] : undefined;
  }

  async settingsFor(accountId: string): Promise<PacingSettings> {
    if (this.uniform) return this.uniform;
    return this.byPlan[await this.planOf(accountId)];
  }

  private async planOf(accountId: string): Promise<Plan> {
    const cached = this.plans.get(accountId);
    if (cached) return cached;
    try {
      const { plan } = await callService(this.bus, QuotaSubjects.accounts.get, { accountId }, { timeoutMs: QUOTA_TIMEOUT_MS, accountId });
      this.plans.set(accountId, plan);
      this.lastKnown.set(accountId, plan);
      return plan;
    } catch (error) {
      const known = this.lastKnown.get(accountId);
      this.logger?.warn({ err: error, accountId, pacedAs: known ?? 'strictest' }, "account's plan not known now; pacing sends by the last plan known");
      return known ?? this.strictest();
    }
  }

  private strictest(): Plan {
    const plans = Object.keys(this.byPlan) as Plan[];
    const weight = (p: Plan) => this.byPlan[p].gapMs + this.byPlan[p].newContactGapMs;
    return plans.reduce((a, b) => (weight(b) > weight(a) ? b : a));
  }
}
