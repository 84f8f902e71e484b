import type { SessionEvent } from '@switchboard/contracts';
import type { Session } from './state.js';

/** Folds one event into the session. Pure; events out of place leave the state unchanged. */
export function evolve(state: Session, event: SessionEvent): Session {
  if (event.type === 'SessionCreated') {
    const { sessionId, accountId, name, createdAt } = event.data;
    return { status: 'pending', sessionId, accountId, name, createdAt, lastActivity: createdAt, qrSequence: 0 };
  }
  if (state.status === 'absent' || state.status === 'deleted') return state;
  switch (event.type) {
    case 'QrCodeIssued':
      return state.status === 'pending' ? { ...state, qrSequence: event.data.sequence } : state;
    case 'SessionConnected':
      return { ...base(state), status: 'connected', phone: event.data.phone, lastActivity: event.data.connectedAt };
    case 'SessionDisconnected':
      return { ...base(state), status: 'disconnected', lastActivity: event.data.disconnectedAt };
    case 'SessionTimedOut':
      return { ...base(state), status: 'timeout', lastActivity: event.data.timedOutAt };
    case 'SessionFailed':
      return { ...base(state), status: 'error', lastActivity: event.data.failedAt };
    case 'SessionDeleted':
      return { ...base(state), status: 'deleted', lastActivity: event.data.deletedAt };
    case 'SessionActivityRecorded':
      return { ...state, lastActivity: later(state.lastActivity, event.data.at) };
  }
}

function base(state: Exclude<Session, { status: 'absent' }>) {
  const { sessionId, accountId, name, createdAt, lastActivity } = state;
  return { sessionId, accountId, name, createdAt, lastActivity };
}

/** Coalesced activity may be recorded late; `lastActivity` never moves backwards. */
function later(a: string, b: string): string {
  return Date.parse(b) > Date.parse(a) ? b : a;
}
