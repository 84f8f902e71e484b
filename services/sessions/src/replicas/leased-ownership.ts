import type { Logger } from '@switchboard/telemetry';
import { ApiError } from '@switchboard/contracts';
import { assignOrphans, FRESH_VIEW_MS, handoverTarget, isAlive, mustFence, ORPHAN_GRACE_MS, placeNew, REBALANCE_SETTLE_MS, rebalanceTarget, RENEW_EVERY_MS } from './lease-rules.js';
import type { ReplicaView } from './lease-rules.js';
import type { LocalSessions, SessionOwnership } from './ownership.js';
import type { ReplicaDirectory } from './replica-directory.js';

/** How often a replica checks whether it must fence itself. */
const FENCE_CHECK_MS = 100;
/** How long a drain waits for adoptions and creates under way before handing over. */
const DRAIN_SETTLE_MS = 10_000;

export interface LeasedOwnershipOptions {
  replicaId: string;
  directory: ReplicaDirectory;
  local: LocalSessions;
  /** `SWITCHBOARD_SESSIONS_MAX_PER_REPLICA`; null = no cap. */
  maxSessions: number | null;
  logger: Logger;
  /** How often the replica looks for work (adopt, take over, rebalance). */
  tickMs?: number;
  /** At most one session moves per this interval when rebalancing. */
  rebalanceEveryMs?: number;
  now?: () => number;
}

/**
 * Sessions shared by several replicas through the `ReplicaDirectory`: each replica renews a lease
 * every second; a session's owner record names the replica that holds its connection, and every
 * change of owner is a revision-checked write, so exactly one claim wins. Each replica converges
 * on its records: it opens the sessions that name it, lets go of the ones that do not, claims its
 * share of the orphans of a dead replica, and (the most loaded one) hands one session at a time to
 * the least loaded. A replica that cannot renew its lease closes its connections before the lease
 * can expire in anyone else's eyes (fencing), so two connections to one device never overlap.
 */
export class LeasedOwnership implements SessionOwnership {
  readonly replicaId: string;
  readonly retriesAdoption = true;
  private readonly directory: ReplicaDirectory;
  private readonly local: LocalSessions;
  private readonly now: () => number;
  private lastRenewedMs: number;
  private fenced = false;
  private draining = false;
  private stopped = false;
  /** Sessions being created, adopted or handed over here: the reconciler leaves them alone. */
  private readonly busy = new Set<string>();
  /** Sessions this replica is handing over: requests for them wait for the new owner. */
  private readonly leaving = new Set<string>();
  /** Since when each orphan has been seen without a live owner. */
  private readonly orphanSince = new Map<string, number>();
  /**
   * New sessions placed on a replica whose claim is not visible here yet, so a burst spreads: each
   * counts until the target's record count passes `before` (or for 5 s at most).
   */
  private placing: { target: string; before: number; atMs: number }[] = [];
  private lastMoveMs = 0;
  private timers: NodeJS.Timeout[] = [];
  private ticking = false;

  constructor(private readonly options: LeasedOwnershipOptions) {
    this.replicaId = options.replicaId;
    this.directory = options.directory;
    this.local = options.local;
    this.now = options.now ?? (() => performance.now());
    this.lastRenewedMs = this.now();
  }

  async start(): Promise<void> {
    await this.renew();
    this.timers.push(setInterval(() => void this.renew().catch(() => undefined), RENEW_EVERY_MS));
    // Fencing on a timer of its own: a round held up by a slow KV call must not delay it.
    this.timers.push(setInterval(() => this.fenceIfLate(), FENCE_CHECK_MS));
    this.timers.push(setInterval(() => void this.tick(), this.options.tickMs ?? 250));
    await this.tick();
  }

  ownerOf(sessionId: string): string {
    const entry = this.directory.owners.get(sessionId);
    if (!entry) return this.local.isLive(sessionId) ? 'unknown' : 'self';
    const { replicaId } = entry.record;
    if (replicaId === this.replicaId) return this.fenced || this.draining || this.leaving.has(sessionId) ? 'unknown' : 'self';
    const owner = this.directory.replicas.get(replicaId);
    return owner && isAlive(owner, this.now()) ? replicaId : 'unknown';
  }

  placeNew(): string {
    const views = this.views();
    const target = placeNew(views, this.now());
    if (target === undefined) return 'full';
    if (target === this.replicaId) return 'self';
    this.placing.push({ target, before: views.find((r) => r.replicaId === target)!.connections, atMs: this.now() });
    return target;
  }

  async claimNew<T>(sessionId: string, accountId: string, open: () => Promise<T>): Promise<T> {
    if (!this.mayConnect()) throw new ApiError('SERVICE_UNAVAILABLE', 'This sessions replica is stopping; retry shortly.');
    this.busy.add(sessionId);
    try {
      const existing = this.directory.owners.get(sessionId);
      const claimed = existing?.record.replicaId === this.replicaId || (await this.directory.claim(sessionId, { replicaId: this.replicaId, accountId }));
      if (!claimed) throw new Error(`session ${sessionId} is owned by another replica`);
      return await open();
    } finally {
      this.busy.delete(sessionId);
    }
  }

  /** Removes the session's owner record, unless it names another replica by now. */
  async release(sessionId: string): Promise<void> {
    const entry = this.directory.owners.get(sessionId);
    if (entry && entry.record.replicaId !== this.replicaId) return;
    await this.directory.release(sessionId, entry?.revision);
  }

  /** Whether this replica may open a connection now (not stopping, not fenced). */
  private mayConnect(): boolean {
    return !this.draining && !this.fenced && !this.stopped;
  }

  async drain(): Promise<void> {
    this.draining = true;
    await this.renew().catch(() => undefined);
    // Adoptions and creates already under way finish first (none starts now), then every connection
    // still here is handed over: the lease goes only once none is left.
    const settleBy = this.now() + DRAIN_SETTLE_MS;
    while ((this.ticking || this.busy.size > 0) && this.now() < settleBy) await new Promise((resolve) => setTimeout(resolve, 20));
    for (let pass = 0; pass < 3 && this.local.held().length > 0; pass++) {
      for (const sessionId of this.local.held()) {
        const target = handoverTarget(this.views(), this.replicaId, this.now());
        // No one to hand to: stop anyway; the record names a replica that is leaving, so the next one takes it.
        await (target ? this.handOver(sessionId, target) : this.local.letGo(sessionId)).catch((error: unknown) => {
          this.options.logger.warn({ err: error, sessionId }, 'session not handed over; closed here, taken over once this lease is gone');
          return this.local.letGo(sessionId);
        });
      }
    }
    await this.directory.leave(this.replicaId).catch((error: unknown) => this.options.logger.warn({ err: error }, 'lease not removed; it expires on its own'));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  /** Every replica's view with its load counted from the owner records (current to the millisecond). */
  private views(): ReplicaView[] {
    const loads = new Map<string, number>();
    for (const { record } of this.directory.owners.values()) loads.set(record.replicaId, (loads.get(record.replicaId) ?? 0) + 1);
    const now = this.now();
    this.placing = this.placing.filter((p) => now - p.atMs < 5_000 && (loads.get(p.target) ?? 0) <= p.before);
    for (const p of this.placing) loads.set(p.target, (loads.get(p.target) ?? 0) + 1);
    return [...this.directory.replicas.values()].map((r) => ({ ...r, connections: loads.get(r.replicaId) ?? 0 }));
  }

  private ownedHere(): number {
    let count = 0;
    for (const { record } of this.directory.owners.values()) if (record.replicaId === this.replicaId) count += 1;
    return count;
  }

  private async renew(): Promise<void> {
    if (this.stopped) return;
    // The lease runs from when the write was sent: the others cannot have seen it any earlier.
    const sentMs = this.now();
    await this.directory.renew({ replicaId: this.replicaId, connections: this.ownedHere(), maxSessions: this.options.maxSessions, draining: this.draining });
    this.lastRenewedMs = Math.max(this.lastRenewedMs, sentMs);
  }

  /** Closes every connection here, at once, when the lease may soon look expired to the others. */
  private fenceIfLate(): void {
    if (this.fenced || this.stopped || !mustFence(this.lastRenewedMs, this.now())) return;
    this.fenced = true;
    this.options.logger.error({ replicaId: this.replicaId }, 'lease not renewed in time: closing every chat connection here before another replica takes them');
    for (const sessionId of this.local.held()) void this.local.cutOff(sessionId);
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    try {
      await this.reconcile();
    } catch (error) {
      this.options.logger.warn({ err: error }, 'sessions ownership round failed; the next one retries');
    } finally {
      this.ticking = false;
    }
  }

  private async reconcile(): Promise<void> {
    const now = this.now();
    this.fenceIfLate();
    if (mustFence(this.lastRenewedMs, now)) return;
    if (this.fenced) {
      this.fenced = false;
      this.options.logger.info({ replicaId: this.replicaId }, 'lease renewed again: taking up the sessions still recorded here');
    }
    if (this.draining) return;
    this.directory.forgetSilent();
    this.letGoOfForeign();
    this.adoptOwn();
    await this.claimOrphans(now);
    await this.rebalance(now);
  }

  /**
   * Opens the sessions whose record names this replica and that have no connection here yet. The
   * record is first written again at the revision read: a replica that judged this one dead may
   * be claiming it at that very moment (this one restarted under the same id), and only one of
   * the two revision-checked writes wins, so only one of them connects.
   */
  private adoptOwn(): void {
    const held = new Set(this.local.held());
    for (const [sessionId, { record, revision }] of this.directory.owners) {
      if (record.replicaId !== this.replicaId || held.has(sessionId) || this.busy.has(sessionId)) continue;
      this.busy.add(sessionId);
      void this.directory
        .claim(sessionId, record, revision)
        .then((confirmed) => (confirmed && this.mayConnect() ? this.local.adopt(sessionId, record.accountId) : undefined))
        .catch((error: unknown) => this.options.logger.error({ err: error, sessionId }, 'session not taken up here'))
        .finally(() => this.busy.delete(sessionId));
    }
  }

  /** Closes connections whose record names another replica (or none): never two holders at once. */
  private letGoOfForeign(): void {
    for (const sessionId of this.local.held()) {
      if (this.busy.has(sessionId)) continue;
      if (this.directory.owners.get(sessionId)?.record.replicaId === this.replicaId) continue;
      this.busy.add(sessionId);
      this.options.logger.warn({ sessionId }, 'session recorded elsewhere: closing its connection here');
      void this.local.letGo(sessionId).finally(() => this.busy.delete(sessionId));
    }
  }

  /** Claims this replica's share of the sessions without a live owner (all of them after a grace). */
  private async claimOrphans(now: number): Promise<void> {
    // Judging others dead needs a view that is current: this replica's own renewal seen back
    // through the watch lately (a stalled loop or a lagging watch shows everyone as silent).
    if (now - (this.directory.echoedAt(this.replicaId) ?? -Infinity) > FRESH_VIEW_MS) return;
    const orphans: { sessionId: string; accountId: string; revision?: number }[] = [];
    for (const [sessionId, { record, revision }] of this.directory.owners) {
      const owner = this.directory.replicas.get(record.replicaId);
      if (record.replicaId !== this.replicaId && !(owner && isAlive(owner, now))) orphans.push({ sessionId, accountId: record.accountId, revision });
    }
    for (const { sessionId, accountId } of this.local.live()) {
      if (!this.directory.owners.has(sessionId) && !this.busy.has(sessionId)) orphans.push({ sessionId, accountId });
    }
    const current = new Set(orphans.map((o) => o.sessionId));
    for (const sessionId of this.orphanSince.keys()) if (!current.has(sessionId)) this.orphanSince.delete(sessionId);
    if (orphans.length === 0) return;
    const assignment = assignOrphans(orphans.map((o) => o.sessionId), this.views(), now);
    for (const orphan of orphans) {
      const since = this.orphanSince.get(orphan.sessionId) ?? now;
      this.orphanSince.set(orphan.sessionId, since);
      const mine = assignment.get(orphan.sessionId) === this.replicaId || (now - since >= ORPHAN_GRACE_MS && this.hasRoom());
      if (!mine) continue;
      if (await this.directory.claim(orphan.sessionId, { replicaId: this.replicaId, accountId: orphan.accountId }, orphan.revision)) {
        this.orphanSince.delete(orphan.sessionId);
        this.options.logger.info({ sessionId: orphan.sessionId }, 'took over a session without a live owner');
      }
    }
    this.adoptOwn();
  }

  private hasRoom(): boolean {
    const { maxSessions } = this.options;
    return maxSessions === null || this.ownedHere() < maxSessions;
  }

  /**
   * One clean handover per interval from the most loaded replica (this one) to the least loaded,
   * only once the records have settled: counts seen mid-burst lag behind and would move sessions
   * back and forth.
   */
  private async rebalance(now: number): Promise<void> {
    if (now - this.lastMoveMs < (this.options.rebalanceEveryMs ?? 1_000)) return;
    const views = this.views();
    if (this.placing.length > 0 || now - this.directory.lastOwnerChangeMs < REBALANCE_SETTLE_MS) return;
    const target = rebalanceTarget(views, this.replicaId, now);
    if (!target) return;
    // A session being paired stays: moving it would cut the pairing off mid-scan.
    const sessionId = this.local.held().find((id) => !this.busy.has(id) && this.local.online(id));
    if (!sessionId) return;
    this.lastMoveMs = now;
    await this.handOver(sessionId, target);
  }

  /** The old owner (this replica) disconnects first, then names the new one, which connects on seeing it. */
  private async handOver(sessionId: string, target: string): Promise<void> {
    const entry = this.directory.owners.get(sessionId);
    if (!entry || entry.record.replicaId !== this.replicaId) return this.local.letGo(sessionId);
    this.busy.add(sessionId);
    this.leaving.add(sessionId);
    try {
      const started = this.now();
      await this.local.letGo(sessionId);
      const moved = await this.directory.claim(sessionId, { ...entry.record, replicaId: target }, entry.revision);
      this.options.logger.info({ sessionId, to: target, moved, ms: Math.round(this.now() - started) }, 'session handed over');
    } finally {
      this.leaving.delete(sessionId);
      this.busy.delete(sessionId);
    }
  }
}
