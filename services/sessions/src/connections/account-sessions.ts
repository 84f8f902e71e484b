import { AccountId, PublishedEvent, QuotaSubjects, SessionStatus, isApiError } from '@switchboard/contracts';
import { callService } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import type { Logger } from '@switchboard/telemetry';
import type { SessionListQueries } from '../projections/session-list/queries.js';
import type { ConnectionManager } from './connection-manager.js';

/** Deletions run side by side, each bounded by the manager's logout deadline. */
const PARALLEL_DELETES = 8;
const PAGE = 100;
const QUOTA_TIMEOUT_MS = 5_000;
/** How long the sweep at start lets resumed connections come online, so the logout reaches the network. */
const RESUME_BOUND_MS = 20_000;
/** How long deletions wait to be reported to a close request (see `deleteAll`). */
const UNREPORTED_MS = 10 * 60_000;

export interface AccountSessionsDeps {
  manager: Pick<ConnectionManager, 'delete'>;
  queries: Pick<SessionListQueries, 'list' | 'withStatus'>;
  /** When the account was closed, or null while it is open (the quota service's answer). */
  closedAt(accountId: string): Promise<string | null>;
  /** Whether the session's live connection is online; undefined when this process holds none. */
  online(sessionId: string): boolean | undefined;
  logger: Logger;
}

/**
 * The sessions side of closing an account: every session of it deleted through
 * `ConnectionManager.delete`, the one path that ends a session (logged out of the network,
 * credentials wiped, SessionDeleted recorded, plan slot freed). Three callers: the admin close
 * (`sb.v1.sessions.deleteAll`, which answers what was deleted), the AccountClosed fact (a close made
 * by the CLI on the quota store, with no bus to call us), and a sweep at start (a fact published
 * while this service was down). Runs for one account are queued one after the other, so two
 * never log the same device out at once; a later run finds what an earlier one left.
 */
export class AccountSessions {
  private readonly runs = new Map<string, Promise<number>>();
  /** Deleted by a run, not yet answered to a request: the fact and the request of one closure race. */
  private readonly unreported = new Map<string, { ids: string[]; expiry: NodeJS.Timeout }>();

  constructor(private readonly deps: AccountSessionsDeps) {}

  /**
   * Deletes every session of the account; answers the ids deleted since the last answer for it:
   * by this call, or by the AccountClosed fact that came with the same closure (it often gets
   * there first). Throws the first failure after trying every session (a retry finishes the job).
   */
  async deleteAll(accountId: string): Promise<string[]> {
    await this.run(accountId);
    const entry = this.unreported.get(accountId);
    this.unreported.delete(accountId);
    clearTimeout(entry?.expiry);
    return entry?.ids ?? [];
  }

  /** `sb.v1.evt.account.AccountClosed` (at least once: a repeat finds nothing left to delete). */
  async onAccountClosed(message: unknown): Promise<void> {
    const published = PublishedEvent.safeParse(message);
    const accountId = AccountId.safeParse((published.data?.data as { accountId?: unknown } | undefined)?.accountId);
    if (!accountId.success) return void this.deps.logger.warn('unreadable AccountClosed fact ignored');
    await this.deleteAndLog(accountId.data);
  }

  /** At start: the sessions of accounts closed while this service was not listening. */
  async sweepClosed(): Promise<void> {
    const sessions = this.deps.queries.withStatus(SessionStatus.options);
    for (const accountId of new Set(sessions.map((session) => session.accountId))) {
      let closedAt: string | null;
      try {
        closedAt = await this.deps.closedAt(accountId);
      } catch (error) {
        // Distributed mode may start us before quota: once said is enough (closing again finishes the job).
        return void this.deps.logger.warn({ err: error, accountId }, 'could not ask the quota service which accounts are closed; sessions of an account closed while this service was down stay until it is closed again');
      }
      if (closedAt === null) continue;
      // Resumed a moment ago: a logout sent before the socket is back would not reach the network.
      await this.untilOnline(sessions.filter((s) => s.accountId === accountId).map((s) => s.sessionId));
      await this.deleteAndLog(accountId);
    }
  }

  private async untilOnline(sessionIds: readonly string[]): Promise<void> {
    const giveUpAt = Date.now() + RESUME_BOUND_MS;
    while (sessionIds.some((id) => this.deps.online(id) === false) && Date.now() < giveUpAt) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private async deleteAndLog(accountId: string): Promise<void> {
    try {
      const deleted = await this.run(accountId);
      if (deleted > 0) this.deps.logger.info({ accountId, deleted }, 'sessions of a closed account deleted');
    } catch (error) {
      this.deps.logger.error({ err: error, accountId }, 'not every session of a closed account could be deleted; close it again to retry');
    }
  }

  /** Queued behind the account's run under way, if any; how many sessions it deleted. */
  private run(accountId: string): Promise<number> {
    const run = (this.runs.get(accountId) ?? Promise.resolve()).catch(() => undefined).then(() => this.deleteEach(accountId));
    this.runs.set(accountId, run);
    const forget = () => {
      if (this.runs.get(accountId) === run) this.runs.delete(accountId);
    };
    run.then(forget, forget);
    return run;
  }

  private remember(accountId: string, sessionId: string): void {
    const entry = this.unreported.get(accountId);
    if (entry) return void entry.ids.push(sessionId);
    // Nobody may ever ask (a close made by the CLI on the store): forget it after a while.
    const expiry = setTimeout(() => this.unreported.delete(accountId), UNREPORTED_MS);
    expiry.unref();
    this.unreported.set(accountId, { ids: [sessionId], expiry });
  }

  private async deleteEach(accountId: string): Promise<number> {
    const failures: unknown[] = [];
    let deleted = 0;
    const tried = new Set<string>();
    // Again until a pass finds nothing new: a session created while the account closed is caught too.
    for (let fresh = this.visible(accountId, tried); fresh.length > 0; fresh = this.visible(accountId, tried)) {
      for (const sessionId of fresh) tried.add(sessionId);
      await inParallel(fresh, PARALLEL_DELETES, async (sessionId) => {
        try {
          await this.deps.manager.delete({ accountId, sessionId });
          this.remember(accountId, sessionId);
          deleted += 1;
        } catch (error) {
          // Deleted meanwhile by its own DELETE: nothing left to do.
          if (!(isApiError(error) && error.code === 'SESSION_NOT_FOUND')) failures.push(error);
        }
      });
    }
    if (failures.length > 0) throw failures[0];
    return deleted;
  }

  /** Every session the account still shows, minus those already tried. */
  private visible(accountId: string, tried: ReadonlySet<string>): string[] {
    const ids: string[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = this.deps.queries.list({ accountId, limit: PAGE, offset }).sessions;
      ids.push(...page.map((session) => session.sessionId).filter((id) => !tried.has(id)));
      if (page.length < PAGE) return ids;
    }
  }
}

/** `closedAt` of AccountSessionsDeps, asked of the quota service over the bus. */
export function quotaClosedAt(bus: Bus): (accountId: string) => Promise<string | null> {
  return async (accountId) => {
    return (await callService(bus, QuotaSubjects.accounts.get, { accountId }, { timeoutMs: QUOTA_TIMEOUT_MS, accountId })).closedAt;
  };
}

async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
