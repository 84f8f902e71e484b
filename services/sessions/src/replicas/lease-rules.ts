/**
 * The decisions of session ownership across sessions replicas, as pure functions of what a
 * replica sees in the shared directory (times are this process's monotonic milliseconds).
 */

/** How often a replica renews its lease (its record in the replicas bucket). */
export const RENEW_EVERY_MS = 1_000;
/** A replica not heard from for this long is dead: its sessions are taken over. */
export const LEASE_TTL_MS = 5_000;
/**
 * A replica that could not renew for `LEASE_TTL_MS - FENCE_MARGIN_MS` closes its connections
 * (fencing), so they are gone before anyone else may take the sessions over.
 */
export const FENCE_MARGIN_MS = 1_500;
/** An orphan nobody claimed this long after its owner died goes to whoever sees it first. */
export const ORPHAN_GRACE_MS = 2_000;
/**
 * A replica claims orphans only while its own renewal came back through its watch within this
 * long: its view of the others' leases is current.
 */
export const FRESH_VIEW_MS = 2 * RENEW_EVERY_MS;
/** Rebalancing waits until no owner record has changed for this long (the views agree by then). */
export const REBALANCE_SETTLE_MS = 500;

/** A replica as the directory shows it. */
export interface ReplicaView {
  replicaId: string;
  /** Chat connections it holds (sessions whose owner record names it). */
  connections: number;
  /** Its cap (`SWITCHBOARD_SESSIONS_MAX_PER_REPLICA`); null = none. */
  maxSessions: number | null;
  /** Leaving (SIGTERM): takes no new session, hands its own over. */
  draining: boolean;
  /** When this process last saw its record written. */
  lastSeenMs: number;
}

export const isAlive = (replica: Pick<ReplicaView, 'lastSeenMs'>, nowMs: number): boolean => nowMs - replica.lastSeenMs < LEASE_TTL_MS;

/** Whether a replica whose last acknowledged renewal was at `lastRenewedMs` must close its connections. */
export const mustFence = (lastRenewedMs: number, nowMs: number): boolean => nowMs - lastRenewedMs >= LEASE_TTL_MS - FENCE_MARGIN_MS;

/** Replicas that may take a session now: alive, not draining, under their cap. */
function candidates(replicas: readonly ReplicaView[], nowMs: number): ReplicaView[] {
  return replicas.filter((r) => isAlive(r, nowMs) && !r.draining && (r.maxSessions === null || r.connections < r.maxSessions));
}

const byLoad = (a: ReplicaView, b: ReplicaView) => a.connections - b.connections || (a.replicaId < b.replicaId ? -1 : a.replicaId > b.replicaId ? 1 : 0);

/** Where a new session goes: the least-loaded live replica with room (ties by id), or none. */
export function placeNew(replicas: readonly ReplicaView[], nowMs: number): string | undefined {
  return candidates(replicas, nowMs).sort(byLoad)[0]?.replicaId;
}

/**
 * Orphans (sessions whose owner is dead or unknown) spread over the live replicas, each to the
 * least loaded at its turn. Every replica computes the same answer from the same view, so each
 * claims only its own share and they rarely collide (a collision is settled by the revision check).
 */
export function assignOrphans(orphans: readonly string[], replicas: readonly ReplicaView[], nowMs: number): Map<string, string> {
  const loads = candidates(replicas, nowMs).map((r) => ({ ...r }));
  const assignment = new Map<string, string>();
  for (const sessionId of [...orphans].sort()) {
    const target = loads.filter((r) => r.maxSessions === null || r.connections < r.maxSessions).sort(byLoad)[0];
    if (!target) break;
    assignment.set(sessionId, target.replicaId);
    target.connections += 1;
  }
  return assignment;
}

/**
 * Gradual rebalancing after a replica joined: each replica above its fair share (the sessions
 * over the live replicas, rounded up) hands one session to the least loaded when they differ by
 * two or more; so at most one move per loaded replica per interval. Answers the target when `self`
 * should move one.
 */
export function rebalanceTarget(replicas: readonly ReplicaView[], selfId: string, nowMs: number): string | undefined {
  const live = replicas.filter((r) => isAlive(r, nowMs) && !r.draining);
  const self = live.find((r) => r.replicaId === selfId);
  if (!self) return undefined;
  const fairShare = Math.ceil(live.reduce((sum, r) => sum + r.connections, 0) / live.length);
  if (self.connections <= fairShare) return undefined;
  const least = candidates(live, nowMs).filter((r) => r.replicaId !== selfId).sort(byLoad)[0];
  return least && self.connections - least.connections >= 2 ? least.replicaId : undefined;
}

/** Where a draining replica hands a session: the least-loaded other live replica with room. */
export function handoverTarget(replicas: readonly ReplicaView[], selfId: string, nowMs: number): string | undefined {
  return placeNew(replicas.filter((r) => r.replicaId !== selfId), nowMs);
}
