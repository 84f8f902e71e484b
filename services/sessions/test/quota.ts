import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Bus } from '@switchboard/bus';
import { QuotaSubjects } from '@switchboard/contracts';
import type { Plan } from '@switchboard/contracts';
import type { RunningService } from '@switchboard/service-kit';
import { createLogger } from '@switchboard/telemetry';
// eslint-disable-next-line @nx/enforce-module-boundaries -- tests only: the real quota service answers slot requests on the same bus, as in the embedded app; production code never imports another service.
import { startQuotaService } from '@switchboard/quota';

/** The real quota service (accounts, plans, session slots) in its own data dir, on the test's bus. */
export class Quota {
  private constructor(
    private readonly bus: Bus,
    private readonly service: RunningService,
  ) {}

  static async start(bus: Bus, dataDir: string): Promise<Quota> {
    const dir = join(dataDir, 'quota-service');
    mkdirSync(dir, { recursive: true });
    const logger = createLogger({ service: 'quota', level: 'silent' });
    return new Quota(bus, await startQuotaService({ bus, config: { dataDir: dir, defaultPlan: 'enterprise' }, logger }));
  }

  /** Opens an account on `plan`. */
  async account(plan: Plan = 'enterprise'): Promise<string> {
    const reply = await this.bus.request(QuotaSubjects.accounts.create.subject, { plan }, { timeoutMs: 30_000 });
    return QuotaSubjects.accounts.create.reply.parse(reply.data).accountId;
  }

  /** Slots the quota service counts for the account (pending + connected sessions). */
  async activeSessions(accountId: string): Promise<number> {
    const reply = await this.bus.request(QuotaSubjects.accounts.get.subject, { accountId }, { timeoutMs: 30_000 });
    return QuotaSubjects.accounts.get.reply.parse(reply.data).activeSessions;
  }

  /** Closes the account as the admin DELETE's first step does (its AccountClosed fact is published). */
  async closeAccount(accountId: string): Promise<void> {
    await this.bus.request(QuotaSubjects.accounts.close.subject, { accountId }, { timeoutMs: 30_000 });
  }

  close(): Promise<void> {
    return this.service.close();
  }
}
