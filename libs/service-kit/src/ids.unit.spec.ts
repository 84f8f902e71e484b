import { describe, expect, it } from 'vitest';
import { increasingUlid, ulid } from './ids.js';

describe('ulids from the pooled randomness', () => {
  it('are well formed and distinct; increasing ones keep increasing within a millisecond', () => {
    const ids = Array.from({ length: 2_000 }, () => ulid());
    expect(ids.every((id) => /^[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2_000);
    const increasing = Array.from({ length: 500 }, () => increasingUlid());
    expect(increasing).toEqual([...increasing].sort());
    expect(new Set(increasing).size).toBe(500);
  });
});
