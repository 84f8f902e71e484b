import { describe, expect, it } from 'vitest';
import { randomHex, ulid } from './ids.js';

describe('pooled random ids', () => {
  it('gives hex of the asked length, never repeating, across many refills of the pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const id = randomHex(16);
      expect(id).toMatch(/^[0-9a-f]{32}$/);
      seen.add(id);
      // ULIDs draw from the same pool in between: neither may hand out bytes the other used.
      expect(ulid()).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    }
    expect(seen.size).toBe(2_000);
    expect(randomHex(8)).toMatch(/^[0-9a-f]{16}$/);
  });
});
