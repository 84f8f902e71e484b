import { describe, expect, it } from 'vitest';
import { KeyCache } from './key-cache.js';
import type { Principal } from './principal.js';

const alice: Principal = { kind: 'account', accountId: 'acc_A', keyId: 'key_A', scopes: ['api'], plan: 'free' };
const bob: Principal = { kind: 'account', accountId: 'acc_B', keyId: 'key_B', scopes: ['api'], plan: 'basic' };

describe('KeyCache', () => {
  it('serves an entry until its TTL is over', () => {
    let now = 1_000;
    const cache = new KeyCache(500, 10, () => now);
    cache.set('h1', alice, cache.epoch);
    now += 499;
    expect(cache.get('h1')).toBe(alice);
    now += 1;
    expect(cache.get('h1')).toBeUndefined();
  });

  it('evicts only the matching principals', () => {
    const cache = new KeyCache(10_000, 10);
    cache.set('h1', alice, cache.epoch);
    cache.set('h2', bob, cache.epoch);
    cache.evictWhere((p) => p.keyId === 'key_A');
    expect([cache.get('h1'), cache.get('h2')]).toEqual([undefined, bob]);
  });

  it('does not store a lookup that started before an eviction (a revocation raced it)', () => {
    const cache = new KeyCache(10_000, 10);
    const epochAtLookup = cache.epoch;
    cache.evictWhere((p) => p.keyId === 'key_A');
    cache.set('h1', alice, epochAtLookup);
    expect(cache.get('h1')).toBeUndefined();
  });

  it('drops the oldest entry when full', () => {
    const cache = new KeyCache(10_000, 2);
    cache.set('h1', alice, cache.epoch);
    cache.set('h2', bob, cache.epoch);
    cache.set('h3', alice, cache.epoch);
    expect([cache.get('h1'), cache.size]).toEqual([undefined, 2]);
  });
});
