import type { Principal } from './principal.js';

interface Entry {
  principal: Principal;
  expiresAt: number;
}

/**
 * Key hash -> principal, for a short time. The TTL alone bounds how long a revoked key keeps
 * working on this replica (even if the revocation event is lost); the events make it immediate.
 * `epoch` moves on every eviction, so a lookup that started before a revocation cannot put the
 * stale answer back into the cache when it returns after the eviction.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private epochValue = 0;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get epoch(): number {
    return this.epochValue;
  }

  get(keyHash: string): Principal | undefined {
    const entry = this.entries.get(keyHash);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > this.now()) return entry.principal;
    this.entries.delete(keyHash);
    return undefined;
  }

  /** Stores a lookup result unless an eviction happened since `epochAtLookup`. */
  set(keyHash: string, principal: Principal, epochAtLookup: number): void {
    if (this.ttlMs <= 0 || epochAtLookup !== this.epochValue) return;
    if (this.entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: the first key is the oldest entry.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(keyHash, { principal, expiresAt: this.now() + this.ttlMs });
  }

  /** Drops every entry that matches; the epoch moves even when none did (a lookup may be in flight). */
  evictWhere(matches: (principal: Principal) => boolean): void {
    this.epochValue += 1;
    for (const [hash, entry] of this.entries) if (matches(entry.principal)) this.entries.delete(hash);
  }

  clear(): void {
    this.evictWhere(() => true);
  }

  get size(): number {
    return this.entries.size;
  }
}
