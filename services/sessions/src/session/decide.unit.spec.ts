import type { SessionEvent } from '@switchboard/contracts';
import { specFor } from '@switchboard/service-kit/testing';
import { describe, expect, it } from 'vitest';
import type { SessionCommand } from './commands.js';
import { decide } from './decide.js';
import { SessionNotFound, SessionNotPending } from './errors.js';
import { evolve } from './evolve.js';
import { initialState } from './state.js';

const sessionId = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const accountId = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const T0 = '2026-11-21T10:00:00.000Z';
const T1 = '2026-11-21T10:01:00.000Z';
const NOW = new Date('2026-11-21T10:05:00.000Z');

const created: SessionEvent = { type: 'SessionCreated', version: 1, data: { sessionId, accountId, name: 'Support', createdAt: T0 } };
const qrIssued: SessionEvent = {
  type: 'QrCodeIssued',
  version: 1,
  data: { sessionId, sequence: 1, fingerprint: '0123456789abcdef', issuedAt: T0, expiresAt: T1 },
};
const connected: SessionEvent = { type: 'SessionConnected', version: 1, data: { sessionId, phone: '15551234567', connectedAt: T1 } };
const timedOut: SessionEvent = { type: 'SessionTimedOut', version: 1, data: { sessionId, timedOutAt: T1 } };
const loggedOut: SessionEvent = { type: 'SessionDisconnected', version: 1, data: { sessionId, reason: 'logged_out', disconnectedAt: T1 } };
const deleted: SessionEvent = {
  type: 'SessionDeleted',
  version: 1,
  data: { sessionId, previousStatus: 'connected', loggedOut: true, deletedAt: T1 },
};

const given = specFor<SessionCommand, ReturnType<typeof evolve>, SessionEvent>({
  // The handler stamps each command with the time it is handled at.
  decide: (command, state) => decide({ ...command, now: NOW }, state),
  evolve,
  initial: initialState,
});

const at = NOW.toISOString();

describe('creating a session', () => {
  it('starts pending', () => {
    given([]).when({ type: 'CreateSession', sessionId, accountId, name: null }).then([
      { type: 'SessionCreated', version: 1, data: { sessionId, accountId, name: null, createdAt: at } },
    ]);
  });
  it('is a no-op when the stream already exists (a retried creation)', () => {
    given([created]).when({ type: 'CreateSession', sessionId, accountId, name: null }).then([]);
  });
});

describe('QR codes', () => {
  const issue: SessionCommand = { type: 'RecordQrIssued', fingerprint: 'fedcba9876543210', expiresAt: new Date(T1) };
  it('numbers each code issued while pending', () => {
    given([created, qrIssued]).when(issue).then([
      { type: 'QrCodeIssued', version: 1, data: { sessionId, sequence: 2, fingerprint: 'fedcba9876543210', issuedAt: at, expiresAt: T1 } },
    ]);
  });
  it('refuses a code once connected: SESSION_NOT_PENDING with the status', () => {
    given([created, connected]).when(issue).thenThrows(SessionNotPending);
    expect(() => decide({ ...issue, now: NOW }, [created, connected].reduce(evolve, initialState))).toThrow(
      expect.objectContaining({ code: 'SESSION_NOT_PENDING', details: { status: 'connected' } }),
    );
  });
  it('refuses a code after a timeout', () => {
    given([created, timedOut]).when(issue).thenThrows(SessionNotPending);
  });
  it('knows no code for a deleted session', () => {
    given([created, deleted]).when(issue).thenThrows(SessionNotFound);
  });
});

describe('connecting and disconnecting', () => {
  it('pending → connected when a phone scans', () => {
    given([created, qrIssued]).when({ type: 'MarkConnected', phone: '15551234567' }).then([
      { type: 'SessionConnected', version: 1, data: { sessionId, phone: '15551234567', connectedAt: at } },
    ]);
  });
  it('stays connected, with no new event, when the driver reconnects after a transient drop', () => {
    given([created, connected]).when({ type: 'MarkConnected', phone: '15551234567' }).then([]);
  });
  it('connected → disconnected when the phone logs the device out', () => {
    given([created, connected]).when({ type: 'MarkDisconnected', reason: 'logged_out' }).then([
      { type: 'SessionDisconnected', version: 1, data: { sessionId, reason: 'logged_out', disconnectedAt: at } },
    ]);
  });
  it('a second disconnect changes nothing', () => {
    given([created, connected, loggedOut]).when({ type: 'MarkDisconnected', reason: 'logged_out' }).then([]);
  });
  it('a deleted session cannot connect', () => {
    given([created, deleted]).when({ type: 'MarkConnected', phone: '15551234567' }).thenThrows(SessionNotFound);
  });
});

describe('timeout and failure', () => {
  it('pending → timeout', () => {
    given([created, qrIssued]).when({ type: 'MarkTimedOut' }).then([{ type: 'SessionTimedOut', version: 1, data: { sessionId, timedOutAt: at } }]);
  });
  it('a timeout that lost the race against a scan changes nothing', () => {
    given([created, connected]).when({ type: 'MarkTimedOut' }).then([]);
  });
  it('connected → error on an unrecoverable failure', () => {
    given([created, connected]).when({ type: 'MarkFailed', code: 'credentials_unreadable', reason: 'wrong key' }).then([
      { type: 'SessionFailed', version: 1, data: { sessionId, code: 'credentials_unreadable', reason: 'wrong key', failedAt: at } },
    ]);
  });
  it('a timed-out session does not fail afterwards', () => {
    given([created, timedOut]).when({ type: 'MarkFailed', code: 'x', reason: 'y' }).then([]);
  });
});

describe('deleting', () => {
  it('records the status it had and whether the logout reached the network', () => {
    given([created, connected]).when({ type: 'DeleteSession', loggedOut: true }).then([
      { type: 'SessionDeleted', version: 1, data: { sessionId, previousStatus: 'connected', loggedOut: true, deletedAt: at } },
    ]);
  });
  it('deletes a timed-out session too', () => {
    given([created, timedOut]).when({ type: 'DeleteSession', loggedOut: false }).then([
      { type: 'SessionDeleted', version: 1, data: { sessionId, previousStatus: 'timeout', loggedOut: false, deletedAt: at } },
    ]);
  });
  it('is final: a second delete is SESSION_NOT_FOUND', () => {
    given([created, deleted]).when({ type: 'DeleteSession', loggedOut: false }).thenThrows(SessionNotFound);
  });
  it('an unknown session is SESSION_NOT_FOUND', () => {
    given([]).when({ type: 'DeleteSession', loggedOut: false }).thenThrows(SessionNotFound);
  });
});

describe('activity', () => {
  it('moves lastActivity of a connected session', () => {
    const events = [created, connected];
    given(events).when({ type: 'RecordActivity', activity: 'message_sent' }).then([
      { type: 'SessionActivityRecorded', version: 1, data: { sessionId, activity: 'message_sent', at } },
    ]);
    const state = [...events, ...decide({ type: 'RecordActivity', activity: 'message_sent', now: NOW }, events.reduce(evolve, initialState))].reduce(
      evolve,
      initialState,
    );
    expect(state).toMatchObject({ status: 'connected', lastActivity: at });
  });
  it('is not recorded for a session that is no longer connected', () => {
    given([created, connected, loggedOut]).when({ type: 'RecordActivity', activity: 'receipt_received' }).then([]);
  });
  it('never moves lastActivity backwards when a coalesced record arrives late', () => {
    const late: SessionEvent = { type: 'SessionActivityRecorded', version: 1, data: { sessionId, activity: 'message_sent', at: T0 } };
    expect([created, connected, late].reduce(evolve, initialState)).toMatchObject({ lastActivity: T1 });
  });
});
