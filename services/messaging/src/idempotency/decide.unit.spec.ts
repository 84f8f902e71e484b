import type { IdempotencyEvent } from '@switchboard/contracts';
import { describe, expect, it } from 'vitest';
import type { Message } from '../message/state.js';
import { decideClaim, decideRelease, evolveKey, freeKey, holderLetsGo, IdempotencyKeyReused } from './decide.js';
import type { ClaimRequest } from './decide.js';

const accountId = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const first = 'msg_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const second = 'msg_01JD8Z6Q9V4N2C3B5X7M1K0P2S';
const keyHash = 'a'.repeat(64);
const bodyHash = 'b'.repeat(64);
const T0 = '2026-11-21T10:00:00.000Z';
const NOW = new Date('2026-11-21T10:05:00.000Z');
const DAY_LATER = new Date('2026-11-22T10:00:00.000Z');

const claimed: IdempotencyEvent = { type: 'IdempotencyKeyClaimed', version: 1, data: { accountId, keyHash, requestHash: bodyHash, messageId: first, claimedAt: T0 } };
const released: IdempotencyEvent = { type: 'IdempotencyKeyReleased', version: 1, data: { messageId: first, code: 'DAILY_MESSAGE_LIMIT_REACHED', releasedAt: T0 } };
const retry: ClaimRequest = { accountId, keyHash, requestHash: bodyHash, messageId: second };
const otherBody: ClaimRequest = { ...retry, requestHash: 'c'.repeat(64) };

/** given(history).claim(request, holderFree, now): the decision on the fold of the history. */
const given = (history: IdempotencyEvent[]) => {
  const state = history.reduce(evolveKey, freeKey);
  return { claim: (request: ClaimRequest, holderFree = false, now = NOW) => decideClaim(state, request, holderFree, now), state };
};

const accepted = {
  messageId: first, accountId, sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', to: '15551234567', content: { type: 'text', text: 'hi' },
  quotedMessageId: null, idempotencyKeyHash: keyHash, usageDay: '2026-11-21', acceptedAt: T0,
} as const;
const failed = (code: 'SERVICE_UNAVAILABLE' | 'SESSION_NOT_FOUND' | 'CHAT_NETWORK_ERROR', beforeNetwork: boolean): Message => ({
  ...accepted, status: 'failed', failure: { code, message: code }, failedAt: T0, beforeNetwork, refundDue: beforeNetwork, refundedAt: null,
});

describe('claiming an Idempotency-Key for a send', () => {
  it('binds a fresh key to the message this request sends', () => {
    expect(given([]).claim({ ...retry, messageId: first })).toEqual({
      kind: 'claim', messageId: first,
      event: { type: 'IdempotencyKeyClaimed', version: 1, data: { accountId, keyHash, requestHash: bodyHash, messageId: first, claimedAt: NOW.toISOString() } },
    });
  });

  it('answers a repeat with the same body for the first message, sending nothing', () => {
    expect(given([claimed]).claim(retry)).toEqual({ kind: 'replay', messageId: first });
  });

  it('refuses the same key with another body while its message holds it: IDEMPOTENCY_KEY_REUSED (409)', () => {
    expect(() => given([claimed]).claim(otherBody)).toThrow(IdempotencyKeyReused);
  });

  it('gives the key to the next request, whatever its body, once the first message failed before the network', () => {
    expect(given([claimed]).claim(retry, true)).toMatchObject({ kind: 'claim', messageId: second });
    expect(given([claimed]).claim(otherBody, true)).toMatchObject({ kind: 'claim', messageId: second });
  });

  it('runs a retry as a new request once the failed first send released the key', () => {
    expect(given([claimed, released]).claim(otherBody)).toMatchObject({ kind: 'claim', messageId: second });
  });

  it('lets the key be claimed again 24 h after the first claim', () => {
    expect(given([claimed]).claim(otherBody, false, DAY_LATER)).toMatchObject({ kind: 'claim', messageId: second });
  });
});

describe('which first messages let their key go', () => {
  it('a failure that never reached the network (503, 404, ...) frees the key', () => {
    expect(holderLetsGo(failed('SERVICE_UNAVAILABLE', true))).toBe(true);
    expect(holderLetsGo(failed('SESSION_NOT_FOUND', true))).toBe(true);
  });

  it('a failure that may have reached the network keeps it: a retry must not send twice', () => {
    expect(holderLetsGo(failed('CHAT_NETWORK_ERROR', false))).toBe(false);
  });

  it('a message on the network, pending or not yet accepted keeps it', () => {
    expect(holderLetsGo({ ...accepted, status: 'pending' })).toBe(false);
    expect(holderLetsGo({ ...accepted, status: 'sent', networkMessageId: 'N', sentAt: T0 })).toBe(false);
    expect(holderLetsGo({ status: 'absent' })).toBe(false);
  });
});

describe('releasing a key after a send failed before acceptance', () => {
  it('frees the key the failed send holds, and only that claim', () => {
    expect(decideRelease(given([claimed]).state, first, 'MEDIA_UNREACHABLE', NOW)).toEqual([
      { type: 'IdempotencyKeyReleased', version: 1, data: { messageId: first, code: 'MEDIA_UNREACHABLE', releasedAt: NOW.toISOString() } },
    ]);
    const reclaimed: IdempotencyEvent = { ...claimed, data: { ...claimed.data, messageId: second } } as IdempotencyEvent;
    expect(decideRelease(given([claimed, released, reclaimed]).state, first, 'MEDIA_UNREACHABLE', NOW)).toEqual([]);
  });
});
