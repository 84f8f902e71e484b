import { describe, expect, it } from 'vitest';
import { assignOrphans, FENCE_MARGIN_MS, handoverTarget, isAlive, LEASE_TTL_MS, mustFence, placeNew, rebalanceTarget } from './lease-rules.js';
import type { ReplicaView } from './lease-rules.js';

const NOW = 100_000;
const replica = (replicaId: string, connections: number, more: Partial<ReplicaView> = {}): ReplicaView => ({
  replicaId,
  connections,
  maxSessions: null,
  draining: false,
  lastSeenMs: NOW - 500,
  ...more,
});

describe('lease rules', () => {
  it('a replica is alive until its lease has not been seen renewed for the TTL', () => {
    expect(isAlive({ lastSeenMs: NOW - LEASE_TTL_MS + 1 }, NOW)).toBe(true);
    expect(isAlive({ lastSeenMs: NOW - LEASE_TTL_MS }, NOW)).toBe(false);
  });

  it('fences (closes its connections) before anyone else can see its lease expire', () => {
    expect(mustFence(NOW - (LEASE_TTL_MS - FENCE_MARGIN_MS) + 1, NOW)).toBe(false);
    expect(mustFence(NOW - (LEASE_TTL_MS - FENCE_MARGIN_MS), NOW)).toBe(true);
    expect(LEASE_TTL_MS - FENCE_MARGIN_MS).toBeLessThan(LEASE_TTL_MS);
  });

  it('places a new session on the least-loaded live replica with room, never a draining or dead one', () => {
    const replicas = [
      replica('rep_a', 3),
      replica('rep_b', 1, { draining: true }),
      replica('rep_c', 0, { lastSeenMs: NOW - LEASE_TTL_MS - 1 }),
      replica('rep_d', 2),
      replica('rep_e', 1, { maxSessions: 1 }),
    ];
    expect(placeNew(replicas, NOW)).toBe('rep_d');
    expect(placeNew([replica('rep_x', 1, { maxSessions: 1 })], NOW)).toBeUndefined();
  });

  it('breaks ties by replica id, so every replica computes the same placement', () => {
    expect(placeNew([replica('rep_b', 1), replica('rep_a', 1)], NOW)).toBe('rep_a');
  });

  it('spreads orphans over the survivors by load, within their caps', () => {
    const orphans = Array.from({ length: 10 }, (_, i) => `ses_${String(i).padStart(2, '0')}`);
    const assignment = assignOrphans(orphans, [replica('rep_a', 10), replica('rep_b', 10), replica('rep_c', 12, { maxSessions: 13 })], NOW);
    const counts = new Map<string, number>();
    for (const target of assignment.values()) counts.set(target, (counts.get(target) ?? 0) + 1);
    expect(assignment.size).toBe(10);
    expect(counts.get('rep_c')).toBe(1);
    expect(Math.abs((counts.get('rep_a') ?? 0) - (counts.get('rep_b') ?? 0))).toBeLessThanOrEqual(1);
    // The same view gives the same answer whatever the order the orphans were listed in.
    expect(assignOrphans([...orphans].reverse(), [replica('rep_a', 10), replica('rep_b', 10), replica('rep_c', 12, { maxSessions: 13 })], NOW)).toEqual(assignment);
  });

  it('leaves orphans unassigned when every replica is full', () => {
    expect(assignOrphans(['ses_1'], [replica('rep_a', 2, { maxSessions: 2 })], NOW).size).toBe(0);
  });

  it('rebalances: each replica above its fair share moves one session to the least loaded when they differ by two or more', () => {
    const replicas = [replica('rep_a', 15), replica('rep_b', 15), replica('rep_c', 0)];
    expect(rebalanceTarget(replicas, 'rep_a', NOW)).toBe('rep_c');
    expect(rebalanceTarget(replicas, 'rep_b', NOW)).toBe('rep_c');
    expect(rebalanceTarget(replicas, 'rep_c', NOW)).toBeUndefined();
    // At its fair share (ceil(21 / 3) = 7) a replica keeps its sessions, however light another one is.
    expect(rebalanceTarget([replica('rep_a', 7), replica('rep_b', 7), replica('rep_c', 7)], 'rep_a', NOW)).toBeUndefined();
    expect(rebalanceTarget([replica('rep_a', 11), replica('rep_b', 10), replica('rep_c', 9)], 'rep_a', NOW)).toBe('rep_c');
    expect(rebalanceTarget([replica('rep_a', 2), replica('rep_b', 1)], 'rep_a', NOW)).toBeUndefined();
    // A draining replica is not a target, and does not count in the share.
    expect(rebalanceTarget([replica('rep_a', 6), replica('rep_b', 0, { draining: true }), replica('rep_c', 2)], 'rep_a', NOW)).toBe('rep_c');
  });

  it('hands a draining replica sessions to another live replica, or nowhere when it is alone', () => {
    const replicas = [replica('rep_a', 5, { draining: true }), replica('rep_b', 3), replica('rep_c', 1)];
    expect(handoverTarget(replicas, 'rep_a', NOW)).toBe('rep_c');
    expect(handoverTarget([replica('rep_a', 5, { draining: true })], 'rep_a', NOW)).toBeUndefined();
  });
});
