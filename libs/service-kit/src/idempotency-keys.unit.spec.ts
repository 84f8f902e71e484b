import { describe, expect, it } from 'vitest';
import { decideClaim, decideRelease, evolveKey, freeKey, IdempotencyKeyReused } from './idempotency-keys.js';
import type { ClaimRequest, KeyFact } from './idempotency-keys.js';

const first = 'res_first';
const second = 'res_second';
const bodyHash = 'b'.repeat(64);
const T0 = '2026-11-21T10:00:00.000Z';
const NOW = new Date('2026-11-21T10:05:00.000Z');
const DAY_LATER = new Date('2026-11-22T10:00:00.000Z');

const claimed: KeyFact = { kind: 'claimed', resourceId: first, requestHash: bodyHash, claimedAt: T0 };
const released: KeyFact = { kind: 'released', resourceId: first };
const retry: ClaimRequest = { requestHash: bodyHash, resourceId: second, now: NOW, holderLetsGo: false };
const otherBody: ClaimRequest = { ...retry, requestHash: 'c'.repeat(64) };

const stateAfter = (history: KeyFact[]) => history.reduce(evolveKey, freeKey);

describe('claiming an Idempotency-Key (every service)', () => {
  it('binds a fresh key to the resource this request makes', () => {
    expect(decideClaim(freeKey, retry)).toEqual({ kind: 'claim', resourceId: second });
  });

  it('answers a repeat with the same body for the first resource, making nothing', () => {
    expect(decideClaim(stateAfter([claimed]), retry)).toEqual({ kind: 'replay', resourceId: first, claimedAt: T0 });
  });

  it('refuses the same key with another body while it is held: IDEMPOTENCY_KEY_REUSED (409)', () => {
    expect(() => decideClaim(stateAfter([claimed]), otherBody)).toThrow(IdempotencyKeyReused);
  });

  it('gives the key to the next request, whatever its body, when the holder lets it go', () => {
    expect(decideClaim(stateAfter([claimed]), { ...otherBody, holderLetsGo: true })).toEqual({ kind: 'claim', resourceId: second });
  });

  it('runs a retry as a new request once the failed first one released the key, and after 24 h', () => {
    expect(decideClaim(stateAfter([claimed, released]), otherBody)).toEqual({ kind: 'claim', resourceId: second });
    expect(decideClaim(stateAfter([claimed]), { ...otherBody, now: DAY_LATER })).toEqual({ kind: 'claim', resourceId: second });
  });
});

describe('releasing a key', () => {
  it('frees it for the claim that holds it, and only that claim (a late release is stale)', () => {
    expect(decideRelease(stateAfter([claimed]), first)).toBe(true);
    const reclaimed: KeyFact = { ...claimed, resourceId: second };
    expect(decideRelease(stateAfter([claimed, released, reclaimed]), first)).toBe(false);
    expect(stateAfter([claimed, reclaimed, released])).toMatchObject({ status: 'held', resourceId: second });
  });
});
