import { ApiError, PLAN_LIMITS, accountStream, quotaEventParser, usageStream, utcDayOf } from '@switchboard/contracts';
import type {
  AccountEvent, AccountId, CreateAccountCommand, CreateAccountReply, DailyUsage, EventMetadata, RefundDailyReply,
  Plan, ReleaseSessionReply, ReserveSessionReply, SessionSlotRequest, UsageEvent,
} from '@switchboard/contracts';
import { WrongExpectedRevisionError } from '@switchboard/eventstore';
import type { EventStore, ExpectedRevision, StreamCondition } from '@switchboard/eventstore';
import { AggregateCache, CommandQueue, eventMetadata, increasingUlid, toRawEvent, ulid } from '@switchboard/service-kit';
import type { AggregateFold, QueuedCommandResult } from '@switchboard/service-kit';
import { decide as decideAccount } from '../account/decide.js';
import type { AccountCommand } from '../account/decide.js';
import { AccountIsClosed, AccountNotFound } from '../account/errors.js';
import { evolve as evolveAccount } from '../account/evolve.js';
import { initialState as initialAccount } from '../account/state.js';
import type { Account } from '../account/state.js';
import { decide as decideUsage, EarlierUnitNeeded, resetsAtOf } from '../usage/decide.js';
import type { EarlierUnit, UsageCommand } from '../usage/decide.js';
import { evolveKeeping, UNITS_KEPT } from '../usage/evolve.js';
import { initialState as initialUsage, usedUnits } from '../usage/state.js';
import type { DailyUsageState } from '../usage/state.js';
import type { Clock } from './clock.js';

/**
 * Waits until the accounts read model shows the event at a position (read-your-writes: a key
 * issued is usable at once). Units are not waited for: every read of usage catches up with the
 * store's head first (`QuotaApi`), so a send does not wait for a read model nobody reads then.
 */
export interface ReadModelSync {
  accounts(position: bigint): Promise<void>;
}

export interface CallContext {
  correlationId?: string | undefined;
  /** What the caller did this for (a request, or the event it acts on): the events' `causationId`. */
  causationId?: string | undefined;
}

/** Accounts and usage days whose folded state stays in memory (a busy day's usage stream is long). */
const CACHED_STREAMS = 10_000;
/** Reservations tried on an account stream that keeps moving under them before the conflict is given up on. */
const ACCOUNT_ATTEMPTS = 10;
const DAY_MS = 86_400_000;

type Parse<E> = (raw: Parameters<typeof quotaEventParser.parse>[0]) => E;

export interface QuotaCommandsOptions {
  /** Message ids a day's usage state holds at least (`UNITS_KEPT`; tests make it small). */
  unitsKept?: number;
}

/**
 * The quota commands that write: accounts and keys, session slots, daily units. Each is the
 * handler loop over one stream; the plan in force is the account stream's own (its stored events,
 * never the read model), so a plan change applies to the next request: a reservation decides on
 * the account as last folded here and its append holds only while the account stream is still at
 * that revision (see `reserveDaily`).
 */
export class QuotaCommands {
  private readonly accounts: CommandQueue<Account, AccountEvent>;
  private readonly accountCache = new AggregateCache<Account>(CACHED_STREAMS);
  private readonly usage: CommandQueue<DailyUsageState, UsageEvent>;
  private readonly usageCache = new AggregateCache<DailyUsageState>(CACHED_STREAMS);
  /** The UTC day of the latest reservation and the day before it (worked out once a day). */
  private days = { today: '', yesterday: '' };

  private readonly usageFold: AggregateFold<DailyUsageState, UsageEvent>;

  constructor(private readonly store: EventStore, private readonly clock: Clock, private readonly sync: ReadModelSync, options: QuotaCommandsOptions = {}) {
    const parse = quotaEventParser.parse;
    this.accounts = new CommandQueue(store, { initial: initialAccount, evolve: evolveAccount, parse: parse as Parse<AccountEvent> }, { cache: this.accountCache });
    this.usageFold = { initial: initialUsage, evolve: evolveKeeping(options.unitsKept ?? UNITS_KEPT), parse: parse as Parse<UsageEvent> };
    this.usage = new CommandQueue(store, this.usageFold, { cache: this.usageCache });
  }

  now(): Date {
    return this.clock.now();
  }

  /** Opens an account (and registers its first key); `accountId` is minted unless given (bootstrap). */
  async openAccount(command: CreateAccountCommand, ctx: CallContext = {}, accountId: AccountId = `acc_${ulid()}`): Promise<CreateAccountReply> {
    const now = this.clock.now();
    // Increasing within a millisecond too, as every key id (see QuotaApi.createKey): listed by id, in the order issued.
    const keyId = command.key ? `key_${increasingUlid()}` : null;
    const name = command.name ?? null;
    const result = await this.onAccount(accountId, ctx, noView, (state) => {
      const opened = decideAccount({ type: 'OpenAccount', accountId, name, plan: command.plan, now }, state);
      if (!command.key || !keyId) return opened;
      // Deciding the key on a throwaway fold: `evolve` must not touch the stream's cached state.
      const fresh = opened.reduce(evolveAccount, initialAccount);
      return [...opened, ...decideAccount({ type: 'IssueKey', keyId, keyHash: command.key.keyHash, scopes: command.key.scopes, now }, fresh)];
    });
    return { accountId, name, plan: command.plan, keyId: result.events.length > 1 ? keyId : null };
  }

  /** Runs an account command; `view` copies what the caller needs from the state right after it. */
  async execute<R = null>(
    accountId: AccountId, command: (now: Date) => AccountCommand, ctx: CallContext = {}, view: (state: Account) => R = noView as never,
  ): Promise<QueuedCommandResult<R, AccountEvent>> {
    const now = this.clock.now();
    return this.onAccount(accountId, ctx, view, (state) => decideAccount(command(now), state));
  }

  async reserveSession(request: SessionSlotRequest, ctx: CallContext = {}): Promise<ReserveSessionReply> {
    const { view } = await this.execute(request.accountId, (now) => ({ type: 'ReserveSlot', sessionId: request.sessionId, now }), ctx, slotsOf);
    return view;
  }

  async releaseSession(request: SessionSlotRequest, ctx: CallContext = {}): Promise<ReleaseSessionReply> {
    const result = await this.execute(request.accountId, (now) => ({ type: 'ReleaseSlot', sessionId: request.sessionId, now }), ctx, slotsOf);
    return { released: result.events.length > 0, ...result.view };
  }

  /**
   * One unit of today (UTC, by the injected clock) under the plan the account has right now. It is
   * decided on the account as this process last folded it, without reading the account stream, and
   * appended on the condition that the account stream is still at that revision (checked in the
   * append's own transaction: `AppendOptions.unchanged`). An account that moved since, or a refusal
   * decided on a state not read now (closed, not found, the day's limit), is decided again on the
   * account stream as read now.
   */
  async reserveDaily(accountId: AccountId, messageId: string, ctx: CallContext = {}): Promise<DailyUsage> {
    const stream = accountStream(accountId);
    const cached = this.accountCache.get(stream);
    let account = cached && accountAt(cached.state, cached.revision);
    for (let attempt = 1; ; attempt++) {
      const assumed = account !== undefined;
      // Read now through the accounts' queue, the one place their streams are folded (its fold hands
      // the slot map on: a fold beside a queued slot command could miscount the slots).
      account ??= (await this.accounts.execute(stream, () => [], accountAt, () => this.metadata(accountId, ctx))).view;
      try {
        return await this.reserveUnder(account, accountId, messageId, ctx);
      } catch (error) {
        const moved = error instanceof WrongExpectedRevisionError && error.stream === stream;
        // Contention, not a fault: nothing was reserved, and the caller may try again shortly.
        if (moved && attempt === ACCOUNT_ATTEMPTS) throw new ApiError('SERVICE_UNAVAILABLE', `account ${accountId} changed on every one of ${ACCOUNT_ATTEMPTS} tries to reserve a unit; retry shortly`);
        if (!(assumed && error instanceof ApiError) && !moved) throw error;
        account = undefined;
      }
    }
  }

  private async reserveUnder(account: AccountAt, accountId: AccountId, messageId: string, ctx: CallContext): Promise<DailyUsage> {
    if (account.closedAt !== null) throw new AccountIsClosed(accountId, account.closedAt);
    const { plan } = account;
    const now = this.clock.now();
    const day = utcDayOf(now);
    const limit = PLAN_LIMITS[plan].messagesPerDay;
    const command: UsageCommand = { type: 'ReserveUnit', accountId, day, messageId, limit, now };
    // Once the account reserves on a new day, the day before leaves the cache, so memory holds one
    // day per account (a late refund of that day reads its stream again).
    this.usageCache.delete(usageStream(accountId, this.dayBefore(day)));
    const { view: used } = await this.onUnit(command, ctx, [{ stream: accountStream(accountId), revision: account.revision }]);
    return { day, limit, used, remaining: limit === null ? null : Math.max(0, limit - used), resetsAt: resetsAtOf(day) };
  }

  async refundDaily(accountId: AccountId, messageId: string, day: string, ctx: CallContext = {}): Promise<RefundDailyReply> {
    await this.accountSummary(accountId);
    const command: UsageCommand = { type: 'RefundUnit', accountId, day, messageId, now: this.clock.now() };
    const result = await this.onUnit(command, ctx);
    return { refunded: result.events.length > 0 };
  }

  /**
   * The plan and keys as the account stream says now (caught up with the store, not the read
   * model: a plan change applies to the next request). ACCOUNT_NOT_FOUND when it was never opened.
   */
  async accountSummary(accountId: AccountId): Promise<AccountSummary> {
    const { view } = await this.accounts.execute(accountStream(accountId), () => [], summaryOf, () => this.metadata(accountId, {}));
    return view;
  }

  private async onAccount<R>(accountId: AccountId, ctx: CallContext, view: (s: Account) => R, decide: (s: Account) => AccountEvent[]) {
    const result = await this.accounts.execute(accountStream(accountId), decide, view, () => this.metadata(accountId, ctx));
    if (result.position !== undefined) await this.sync.accounts(result.position);
    return result;
  }

  /**
   * Reserving and refunding are idempotent by message id. A day's state holds its recent ids only
   * (`evolve`): for an older one it let go, what its stream says is looked up and decided on.
   */
  private async onUnit(command: UsageCommand, ctx: CallContext, unchanged?: readonly StreamCondition[]) {
    const stream = usageStream(command.accountId, command.day);
    const execute = (decide: (s: DailyUsageState) => UsageEvent[]) => this.usage.execute(stream, decide, usedUnits, () => this.metadata(command.accountId, ctx), unchanged);
    return execute((state) => decideUsage(command, state)).catch(async (error: unknown) => {
      if (!(error instanceof EarlierUnitNeeded)) throw error;
      const earlier = await this.earlierUnit(stream, command.messageId);
      return execute((state) => decideUsage({ ...command, earlier }, state));
    });
  }

  /** The unit of `messageId` as its day's stream has it: its own events folded. */
  private async earlierUnit(stream: string, messageId: string): Promise<EarlierUnit> {
    const own = (await this.store.readStream(stream)).filter((r) => (r.data as { messageId?: unknown }).messageId === messageId);
    const state = own.reduce((s, r) => this.usageFold.evolve(s, this.usageFold.parse(toRawEvent(r))), initialUsage);
    return state.status === 'counting' ? state.units.get(messageId) ?? 'none' : 'none';
  }

  private dayBefore(day: string): string {
    if (day !== this.days.today) this.days = { today: day, yesterday: utcDayOf(new Date(Date.parse(day) - DAY_MS)) };
    return this.days.yesterday;
  }

  private metadata(accountId: AccountId, ctx: CallContext): EventMetadata {
    return eventMetadata({ accountId, correlationId: ctx.correlationId, causationId: ctx.causationId, now: this.clock.now() });
  }
}

/** What a reservation decides on: the plan and closure at a revision of the account stream. */
interface AccountAt {
  plan: Plan;
  closedAt: string | null;
  revision: bigint;
}

/** ACCOUNT_NOT_FOUND when it was never opened. Read from a cached entry too: plan and closure are never changed in place. */
function accountAt(state: Account, revision: ExpectedRevision): AccountAt {
  if (state.status === 'not_opened' || typeof revision !== 'bigint') throw new AccountNotFound();
  return { plan: state.plan, closedAt: state.status === 'closed' ? state.closedAt : null, revision };
}

/** What bootstrap and reservations need of an account: its plan, its keys (copied), whether closed. */
export interface AccountSummary {
  plan: Plan;
  keys: { keyId: string; revokedAt: string | null }[];
  closedAt: string | null;
}

const noView = (): null => null;

function summaryOf(state: Account): AccountSummary {
  if (state.status === 'not_opened') throw new AccountNotFound();
  const keys = [...state.keys].map(([keyId, key]) => ({ keyId, revokedAt: key.revokedAt }));
  return { plan: state.plan, keys, closedAt: state.status === 'closed' ? state.closedAt : null };
}

function slotsOf(state: Account): ReserveSessionReply {
  if (state.status === 'not_opened') throw new AccountNotFound();
  return { limit: PLAN_LIMITS[state.plan].maxSessions, used: state.slotsHeld };
}
