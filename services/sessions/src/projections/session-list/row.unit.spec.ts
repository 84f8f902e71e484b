import type { SessionEvent } from '@switchboard/contracts';
import { describe, expect, it } from 'vitest';
import { evolveRow } from './row.js';
import type { SessionListRow } from './row.js';

const SESSION = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const AT = '2026-11-21T10:15:30.000Z';
const LATER = '2026-11-21T10:20:00.000Z';

const created = evolveRow(null, {
  type: 'SessionCreated',
  version: 1,
  data: { sessionId: SESSION, accountId: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', name: null, createdAt: AT },
} as SessionEvent) as SessionListRow;

const after = (...events: Partial<SessionEvent>[]) => events.reduce<SessionListRow | null>((row, event) => evolveRow(row, { version: 1, ...event } as SessionEvent), created);

describe('the session list row: status and why', () => {
  it('has no reason while pending or connected', () => {
    expect(created).toMatchObject({ status: 'pending', statusReason: null });
    expect(after({ type: 'SessionConnected', data: { sessionId: SESSION, phone: '15551234567', connectedAt: LATER } })).toMatchObject({ status: 'connected', statusReason: null });
  });

  it('says why it was disconnected, with the network\'s cause when one is known', () => {
    expect(after({ type: 'SessionDisconnected', data: { sessionId: SESSION, reason: 'logged_out', disconnectedAt: LATER } })?.statusReason).toEqual({
      code: 'logged_out',
      message: 'The device was unlinked from the phone (or logged out); create a new session to link it again.',
    });
    const lost = after({ type: 'SessionDisconnected', data: { sessionId: SESSION, reason: 'connection_lost', detail: 'dns: web.whatsapp.com could not be resolved (ENOTFOUND)', disconnectedAt: LATER } });
    expect(lost).toMatchObject({
      status: 'disconnected',
      lastActivity: LATER,
      statusReason: { code: 'connection_lost', message: 'The connection to the chat network was lost and could not be restored (dns: web.whatsapp.com could not be resolved (ENOTFOUND)).' },
    });
  });

  it('says a timeout is an unscanned QR, and an error in its failure\'s own words', () => {
    expect(after({ type: 'SessionTimedOut', data: { sessionId: SESSION, timedOutAt: LATER } })?.statusReason?.code).toBe('qr_timeout');
    const failed = after({ type: 'SessionFailed', data: { sessionId: SESSION, code: 'resume_failed', reason: 'stored chat credentials could not be used', failedAt: LATER } });
    expect(failed).toMatchObject({ status: 'error', statusReason: { code: 'resume_failed', message: 'Stored chat credentials could not be used.' } });
  });

  it('leaves the list when deleted', () => {
    expect(after({ type: 'SessionDeleted', data: { sessionId: SESSION, previousStatus: 'pending', loggedOut: false, deletedAt: LATER } })).toBeNull();
  });
});
