import { describe, expect, it } from 'vitest';
import { pooledRandomBytes, pooledRandomFraction, randomHex } from './random-pool.js';

describe('the pooled randomness', () => {
  it('gives values of the asked size, never repeating, across many refills of the pool', () => {
    const hex = new Set<string>();
    const bytes = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const id = randomHex(16);
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      hex.add(id);
      // Every kind draws from the one pool in between: none may hand out bytes another used.
      const view = pooledRandomBytes(16);
      expect(view.length).toBe(16);
      bytes.add(view.toString('hex'));
      const fraction = pooledRandomFraction();
      expect(fraction >= 0 && fraction < 1).toBe(true);
    }
    expect(hex.size).toBe(2_000);
    expect(bytes.size).toBe(2_000);
    expect(new Set([...hex].filter((h) => bytes.has(h))).size).toBe(0);
    expect(randomHex(8)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('refuses a draw larger than the pool', () => {
    expect(() => pooledRandomBytes(4_097)).toThrow(RangeError);
  });
});
