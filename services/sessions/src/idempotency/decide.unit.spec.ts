import type { SessionKeyEvent } from '@switchboard/contracts';
import { describe, expect, it } from 'vitest';
import { decideClaim, decideRelease, evolveKey, freeKey, IdempotencyKeyReused } from './decide.js';
import type { ClaimRequest } from './decide.js';

const accountId = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const first = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const second = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2S';
const keyHash = 'a'.repeat(64);
const bodyHash = 'b'.repeat(64);
const T0 = '2026-11-21T10:00:00.000Z';
const NOW = new Date('2026-11-21T10:05:00.000Z');
const DAY_LATER = new Date('2026-11-22T10:00:00.000Z');

const claimed: SessionKeyEvent = { type: 'SessionKeyClaimed', version: 1, data: { accountId, keyHash, requestHash: bodyHash, sessionId: first, claimedAt: T0 } };
const released: SessionKeyEvent = { type: 'SessionKeyReleased', version: 1, data: { sessionId: first, code: 'SESSION_LIMIT_REACHED', releasedAt: T0 } };
const retry: ClaimRequest = { accountId, keyHash, requestHash: bodyHash, sessionId: second };

/** given(history).claim(request, now): the decision; the key's state is the fold of the history. */
const given = (history: SessionKeyEvent[]) => {
  const state = history.reduce(evolveKey, freeKey);
  return { claim: (request: ClaimRequest, now = NOW) => decideClaim(state, request, now), state };
};

describe('claiming an Idempotency-Key for a create', () => {
  it('binds a fresh key to the session this request creates', () => {
    expect(given([]).claim({ ...retry, sessionId: first })).toEqual({
      kind: 'claim',
      event: { type: 'SessionKeyClaimed', version: 1, data: { accountId, keyHash, requestHash: bodyHash, sessionId: first, claimedAt: NOW.toISOString() } },
    });
  });

  it('answers a repeat with the same body for the first session, creating nothing', () => {
    expect(given([claimed]).claim(retry)).toEqual({ kind: 'replay', sessionId: first, claimedAt: T0 });
  });

  it('refuses the same key with another body: IDEMPOTENCY_KEY_REUSED (409)', () => {
    expect(() => given([claimed]).claim({ ...retry, requestHash: 'c'.repeat(64) })).toThrow(IdempotencyKeyReused);
    expect(() => given([claimed]).claim({ ...retry, requestHash: 'c'.repeat(64) })).toThrow(expect.objectContaining({ code: 'IDEMPOTENCY_KEY_REUSED' }));
  });

  it('lets the key be claimed again 24 h after the first claim, whatever the body', () => {
    expect(given([claimed]).claim({ ...retry, requestHash: 'c'.repeat(64) }, DAY_LATER)).toMatchObject({ kind: 'claim', event: { data: { sessionId: second } } });
  });

  it('runs a retry as a new request once the failed first create released the key', () => {
    expect(given([claimed, released]).claim(retry)).toMatchObject({ kind: 'claim', event: { data: { sessionId: second } } });
  });
});

describe('releasing a key after a failed create', () => {
  it('frees the key the failed create holds', () => {
    expect(decideRelease(given([claimed]).state, first, 'SESSION_LIMIT_REACHED', NOW)).toEqual([
      { type: 'SessionKeyReleased', version: 1, data: { sessionId: first, code: 'SESSION_LIMIT_REACHED', releasedAt: NOW.toISOString() } },
    ]);
  });

  it('leaves a later claim alone: a stale release frees nothing', () => {
    const reclaimed: SessionKeyEvent = { ...claimed, data: { ...claimed.data, sessionId: second } };
    expect(decideRelease(given([claimed, released, reclaimed]).state, first, 'CHAT_NETWORK_ERROR', NOW)).toEqual([]);
    expect(given([claimed, reclaimed, released]).state).toMatchObject({ kind: 'Held', sessionId: second });
  });
});
