import { publicEventId } from '@switchboard/contracts';
import type { PublicEvent, SessionEvent, SessionStatus, SessionStatusReason } from '@switchboard/contracts';

// Session facts as the public catalogue tells them (issue 11): `session.status` on every status
// change, with the status before it and a reason; `session.qr` for a code this process still holds.

/** A stored session fact with what the mapping needs beside its data. */
export interface SessionFact {
  /** The store's event id: the public id is derived from it. */
  eventId: string;
  event: SessionEvent;
  /** When it was recorded (ISO). */
  timestamp: string;
}

/** The status a session has after `event`; null before it exists. Activity changes nothing. */
export function statusAfter(previous: SessionStatus | null, event: SessionEvent): SessionStatus | null {
  switch (event.type) {
    case 'SessionCreated':
      return 'pending';
    case 'SessionConnected':
      return 'connected';
    case 'SessionDisconnected':
    case 'SessionDeleted':
      return 'disconnected';
    case 'SessionTimedOut':
      return 'timeout';
    case 'SessionFailed':
      return 'error';
    case 'QrCodeIssued':
    case 'SessionActivityRecorded':
      return previous;
  }
}

function reasonOf(event: SessionEvent, previous: SessionStatus | null): SessionStatusReason | null {
  switch (event.type) {
    case 'SessionCreated':
      return 'created';
    case 'SessionConnected':
      return previous === 'pending' ? 'paired' : 'reconnected';
    case 'SessionDisconnected':
      return event.data.reason;
    case 'SessionTimedOut':
      return 'qr_timeout';
    case 'SessionFailed':
      return 'failed';
    case 'SessionDeleted':
      return 'deleted';
    case 'SessionActivityRecorded':
      // A connected session whose connection was lost (dropped, or silent) and came back by itself.
      return event.data.activity === 'reconnected' ? 'reconnected' : null;
    default:
      return null;
  }
}

/**
 * The public event of one session fact, or null when it has none. `previous` is the session's
 * status before the fact; `liveQr` the data URL of a QR code this process holds and whose
 * fingerprint matches the fact's (a code is a short-lived pairing secret that is never stored, so
 * a fact whose code is gone or held elsewhere has no `session.qr`).
 */
export function toPublicEvent(fact: SessionFact, previous: SessionStatus | null, liveQr?: string): PublicEvent | null {
  const { event } = fact;
  const sessionId = event.data.sessionId;
  if (event.type === 'QrCodeIssued') {
    if (liveQr === undefined) return null;
    const type = 'session.qr';
    return { id: publicEventId(fact.eventId, type), type, timestamp: fact.timestamp, data: { sessionId, qrCode: liveQr, expiresAt: event.data.expiresAt } };
  }
  const reason = reasonOf(event, previous);
  const status = statusAfter(previous, event);
  if (reason === null || status === null) return null;
  const previousStatus = event.type === 'SessionDeleted' ? event.data.previousStatus : previous;
  const type = 'session.status';
  return { id: publicEventId(fact.eventId, type), type, timestamp: fact.timestamp, data: { sessionId, status, previousStatus, reason } };
}
