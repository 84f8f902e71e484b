import type { AccountId, Phone, SessionId, SessionName, SessionStatus } from '@switchboard/contracts';

/** What every created session knows about itself. */
interface SessionBase {
  sessionId: SessionId;
  accountId: AccountId;
  name: SessionName | null;
  createdAt: string;
  /** Last state change, send or receipt (ISO 8601 UTC). */
  lastActivity: string;
}

/** No event yet: the stream does not exist. */
export interface NotCreated {
  status: 'absent';
}

/** Created, showing QR codes, waiting for a phone to scan one. `qrSequence` counts codes issued. */
export interface Pending extends SessionBase {
  status: 'pending';
  qrSequence: number;
}

/** Linked to `phone`; a transient network drop keeps it here (the driver reconnects). */
export interface Connected extends SessionBase {
  status: 'connected';
  phone: Phone;
}

/** Stopped for good without being deleted: `disconnected`, `timeout` or `error`. */
export interface Closed extends SessionBase {
  status: Extract<SessionStatus, 'disconnected' | 'timeout' | 'error'>;
}

/** Deleted by its account: terminal, invisible to the API, its events kept for audit. */
export interface Deleted extends SessionBase {
  status: 'deleted';
}

/** A session, as folded from its stream; `status` is its public status once it is visible. */
export type Session = NotCreated | Pending | Connected | Closed | Deleted;
/** A session the API can show (created and not deleted). */
export type VisibleSession = Pending | Connected | Closed;

export const initialState: Session = { status: 'absent' };

export function isVisible(session: Session): session is VisibleSession {
  return session.status !== 'absent' && session.status !== 'deleted';
}
