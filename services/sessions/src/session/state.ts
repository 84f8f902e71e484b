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
  kind: 'NotCreated';
}

/** Created, showing QR codes, waiting for a phone to scan one. `qrSequence` counts codes issued. */
export interface Pending extends SessionBase {
  kind: 'Pending';
  qrSequence: number;
}

/** Linked to `phone`; a transient network drop keeps it here (the driver reconnects). */
export interface Connected extends SessionBase {
  kind: 'Connected';
  phone: Phone;
}

/** Stopped for good without being deleted: `disconnected`, `timeout` or `error`. */
export interface Closed extends SessionBase {
  kind: 'Closed';
  status: Extract<SessionStatus, 'disconnected' | 'timeout' | 'error'>;
}

/** Deleted by its account: terminal, invisible to the API, its events kept for audit. */
export interface Deleted extends SessionBase {
  kind: 'Deleted';
}

/** A session, as folded from its stream. */
export type Session = NotCreated | Pending | Connected | Closed | Deleted;
/** A session the API can show (created and not deleted). */
export type VisibleSession = Pending | Connected | Closed;

export const initialSession: Session = { kind: 'NotCreated' };

/** The public status of a visible session. */
export function statusOf(session: VisibleSession): SessionStatus {
  switch (session.kind) {
    case 'Pending':
      return 'pending';
    case 'Connected':
      return 'connected';
    case 'Closed':
      return session.status;
  }
}

export function isVisible(session: Session): session is VisibleSession {
  return session.kind === 'Pending' || session.kind === 'Connected' || session.kind === 'Closed';
}
