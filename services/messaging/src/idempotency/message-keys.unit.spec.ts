import type { IdempotencyEvent } from '@switchboard/contracts';
import { describe, expect, it } from 'vitest';
import type { Message } from '../message/state.js';
import { holderLetsGo, MESSAGE_KEY_EVENTS } from './message-keys.js';

const accountId = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const first = 'msg_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const keyHash = 'a'.repeat(64);
const T0 = '2026-11-21T10:00:00.000Z';

const accepted = {
  messageId: first, accountId, sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', to: '15551234567', content: { type: 'text', text: 'hi' },
  quotedMessageId: null, idempotencyKeyHash: keyHash, usageDay: '2026-11-21', acceptedAt: T0,
} as const;
const failed = (code: 'SERVICE_UNAVAILABLE' | 'SESSION_NOT_FOUND' | 'CHAT_NETWORK_ERROR', beforeNetwork: boolean): Message => ({
  ...accepted, status: 'failed', failure: { code, message: code }, failedAt: T0, beforeNetwork, refundDue: beforeNetwork, refundedAt: null,
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

describe('the key events of sends, in the messaging vocabulary', () => {
  it('writes and reads a claim and a release by message id', () => {
    const claim = MESSAGE_KEY_EVENTS.claimed({ accountId, keyHash, requestHash: 'b'.repeat(64), resourceId: first, claimedAt: T0 });
    expect(claim).toEqual({ type: 'IdempotencyKeyClaimed', version: 1, data: { accountId, keyHash, requestHash: 'b'.repeat(64), messageId: first, claimedAt: T0 } });
    expect(MESSAGE_KEY_EVENTS.read(claim)).toEqual({ kind: 'claimed', resourceId: first, requestHash: 'b'.repeat(64), claimedAt: T0 });
    const release: IdempotencyEvent = MESSAGE_KEY_EVENTS.released({ resourceId: first, code: 'MEDIA_UNREACHABLE', releasedAt: T0 });
    expect(MESSAGE_KEY_EVENTS.read(release)).toEqual({ kind: 'released', resourceId: first });
    expect(MESSAGE_KEY_EVENTS.parse({ type: release.type, version: 1, data: release.data })).toEqual(release);
  });
});
