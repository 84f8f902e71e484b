import { describe, expect, it } from 'vitest';
import { publicEventId } from '@switchboard/contracts';
import type { SessionEvent } from '@switchboard/contracts';
import { statusAfter, toPublicEvent } from './public-events.js';

const sessionId = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const at = '2026-11-21T10:00:00.000Z';
const fact = (event: SessionEvent, eventId = 'e-1') => ({ eventId, event, timestamp: at });
const created: SessionEvent = { type: 'SessionCreated', version: 1, data: { sessionId, accountId: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', name: null, createdAt: at } };
const connected: SessionEvent = { type: 'SessionConnected', version: 1, data: { sessionId, phone: '15551234567', connectedAt: at } };
const qr: SessionEvent = { type: 'QrCodeIssued', version: 1, data: { sessionId, sequence: 1, fingerprint: '0123456789abcdef', issuedAt: at, expiresAt: at } };
const activity: SessionEvent = { type: 'SessionActivityRecorded', version: 1, data: { sessionId, activity: 'message_sent', at } };

describe('session facts as public events', () => {
  it('tells creation as pending, created, with no previous status, under an id derived from the fact', () => {
    expect(toPublicEvent(fact(created, 'src-1'), null)).toEqual({
      id: publicEventId('src-1', 'session.status'),
      type: 'session.status',
      timestamp: at,
      data: { sessionId, status: 'pending', previousStatus: null, reason: 'created' },
    });
  });

  it('tells a first connection as paired and a later one as reconnected', () => {
    expect(toPublicEvent(fact(connected), 'pending')?.data).toMatchObject({ status: 'connected', previousStatus: 'pending', reason: 'paired' });
    expect(toPublicEvent(fact(connected), 'disconnected')?.data).toMatchObject({ status: 'connected', reason: 'reconnected' });
  });

  it('names the reason of every stop', () => {
    const stop = (event: SessionEvent) => toPublicEvent(fact(event), 'connected')?.data;
    expect(stop({ type: 'SessionDisconnected', version: 1, data: { sessionId, reason: 'logged_out', disconnectedAt: at } })).toMatchObject({ status: 'disconnected', reason: 'logged_out' });
    expect(stop({ type: 'SessionDisconnected', version: 1, data: { sessionId, reason: 'replaced', disconnectedAt: at } })).toMatchObject({ reason: 'replaced' });
    expect(stop({ type: 'SessionTimedOut', version: 1, data: { sessionId, timedOutAt: at } })).toMatchObject({ status: 'timeout', reason: 'qr_timeout' });
    expect(stop({ type: 'SessionFailed', version: 1, data: { sessionId, code: 'x', reason: 'y', failedAt: at } })).toMatchObject({ status: 'error', reason: 'failed' });
    expect(stop({ type: 'SessionDeleted', version: 1, data: { sessionId, previousStatus: 'pending', loggedOut: false, deletedAt: at } })).toEqual({
      sessionId, status: 'disconnected', previousStatus: 'pending', reason: 'deleted',
    });
  });

  it('tells a connection restored by itself (after a drop or a silent socket) as reconnected, staying connected', () => {
    const reconnected: SessionEvent = { type: 'SessionActivityRecorded', version: 1, data: { sessionId, activity: 'reconnected', at } };
    expect(toPublicEvent(fact(reconnected), 'connected')?.data).toEqual({ sessionId, status: 'connected', previousStatus: 'connected', reason: 'reconnected' });
  });

  it('tells a QR code only with the live code, and other activity never', () => {
    expect(toPublicEvent(fact(qr), 'pending')).toBeNull();
    expect(toPublicEvent(fact(qr), 'pending', 'data:image/png;base64,AAAA')).toMatchObject({ type: 'session.qr', data: { sessionId, qrCode: 'data:image/png;base64,AAAA', expiresAt: at } });
    expect(toPublicEvent(fact(activity), 'connected')).toBeNull();
  });

  it('folds the status a fact leaves behind', () => {
    expect([created, qr, connected, activity].reduce(statusAfter, null)).toBe('connected');
  });
});
