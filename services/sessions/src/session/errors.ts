import { ApiError } from '@switchboard/contracts';
import type { SessionStatus } from '@switchboard/contracts';

// Named domain errors of the session aggregate. Each one is an ApiError, so the bus carries its
// public code (api-decisions.md) to the gateway unchanged.

/** Unknown, deleted, or owned by another account: the API never reveals which. */
export class SessionNotFound extends ApiError {
  constructor() {
    super('SESSION_NOT_FOUND', 'No session with this id exists for this account.');
  }
}

/** A session's status as a sentence part: "The session ${…}". */
const STATUS_WORDS: Record<SessionStatus, string> = {
  pending: 'is still waiting for its QR code to be scanned',
  connected: 'is connected',
  disconnected: 'was disconnected (create a new one to link again)',
  timeout: 'timed out before its QR code was scanned (create a new one)',
  error: 'failed (create a new one)',
};

/** A QR code was asked for (or issued) while the session was not waiting for a scan. */
export class SessionNotPending extends ApiError {
  constructor(readonly status: SessionStatus) {
    super('SESSION_NOT_PENDING', `The session ${STATUS_WORDS[status]}; a QR code exists only while it waits for a scan.`, { status });
  }
}

/** A send through a session whose status is not `connected`. */
export class SessionNotConnected extends ApiError {
  constructor(readonly status: SessionStatus) {
    super('SESSION_NOT_CONNECTED', `The session ${STATUS_WORDS[status]}; only a connected session can send.`, { status });
  }
}
