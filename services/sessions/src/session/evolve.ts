import type { SessionEvent } from '@switchboard/contracts';
import type { Session } from './state.js';

/** Folds one event into the session. Pure; events out of place leave the state unchanged. */
export function evolve(state: Session, event: SessionEvent): Session {
  if (event.type === 'SessionCreated') {
    const { sessionId, accountId, name, createdAt } = event.data;
    return { kind: 'Pending', sessionId, accountId, name, createdAt, lastActivity: createdAt, qrSequence: 0 };
  }
  if (state.kind === 'NotCreated' || state.kind === 'Deleted') return state;
  switch (event.type) {
    case 'QrCodeIssued':
      return state.kind === 'Pending' ? { ...state, qrSequence: event.data.sequence } : state;
    case 'SessionConnected':
      return { ...base(state), kind: 'Connected', phone: event.data.phone, lastActivity: event.data.connectedAt };
    case 'SessionDisconnected':
      return { ...base(state), kind: 'Closed', status: 'disconnected', lastActivity: event.data.disconnectedAt };
    case 'SessionTimedOut':
      return { ...base(state), kind: 'Closed', status: 'timeout', lastActivity: event.data.timedOutAt };
    case 'SessionFailed':
      return { ...base(state), kind: 'Closed', status: 'error', lastActivity: event.data.failedAt };
    case 'SessionDeleted':
      return { ...base(state), kind: 'Deleted', lastActivity: event.data.deletedAt };
    case 'SessionActivityRecorded':
      return { ...state, lastActivity: later(state.lastActivity, event.data.at) };
  }
}

function base(state: Exclude<Session, { kind: 'NotCreated' }>) {
  const { sessionId, accountId, name, createdAt, lastActivity } = state;
  return { sessionId, accountId, name, createdAt, lastActivity };
}

/** Coalesced activity may be recorded late; `lastActivity` never moves backwards. */
function later(a: string, b: string): string {
  return Date.parse(b) > Date.parse(a) ? b : a;
}
