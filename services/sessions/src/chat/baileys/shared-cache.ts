import type { PossiblyExtendedCacheStore } from '@whiskeysockets/baileys';
import { BoundedMap } from '../bounded-map.js';

/**
 * Baileys' `CacheStore` over a bounded LRU with lazy expiry. One instance is shared by every
 * socket of the process (device lists and retry counters are keyed by jid / message id, so
 * sockets do not collide), instead of five NodeCaches with timers per socket.
 */
export class SharedCache implements PossiblyExtendedCacheStore {
  readonly #map: BoundedMap<string, unknown>;

  constructor(capacity: number, ttlMs: number) {
    this.#map = new BoundedMap(capacity, ttlMs);
  }

  get<T>(key: string): T | undefined {
    return this.#map.get(key) as T | undefined;
  }

  set<T>(key: string, value: T): void {
    this.#map.set(key, value);
  }

  del(key: string): void {
    this.#map.delete(key);
  }

  flushAll(): void {
    this.#map.clear();
  }

  async mget<T>(keys: string[]): Promise<Record<string, T | undefined>> {
    return Object.fromEntries(keys.map((key) => [key, this.get<T>(key)]));
  }

  mset<T>(entries: { key: string; value: T }[]): void {
    for (const { key, value } of entries) this.set(key, value);
  }

  mdel(keys: string[]): void {
    for (const key of keys) this.del(key);
  }
}

/** Caches Baileys lets us pass in, shared across all sockets of one process. */
export interface SharedBaileysCaches {
  userDevicesCache: SharedCache;
  msgRetryCounterCache: SharedCache;
  callOfferCache: SharedCache;
  placeholderResendCache: SharedCache;
}

const MINUTE = 60_000;

export function createSharedBaileysCaches(): SharedBaileysCaches {
  return {
    // Baileys' default TTL for device lists is 5 minutes; a miss re-keys the contact.
    userDevicesCache: new SharedCache(20_000, 5 * MINUTE),
    msgRetryCounterCache: new SharedCache(10_000, 60 * MINUTE),
    callOfferCache: new SharedCache(1_000, 5 * MINUTE),
    placeholderResendCache: new SharedCache(1_000, 60 * MINUTE),
  };
}
