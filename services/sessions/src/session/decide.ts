import type { SessionEvent } from '@switchboard/contracts';
import type {
  CreateSession,
  DeleteSession,
  MarkConnected,
  MarkDisconnected,
  MarkFailed,
  RecordActivity,
  RecordQrIssued,
  SessionCommand,
  Timed,
} from './commands.js';
import { SessionNotFound, SessionNotPending } from './errors.js';
import { isVisible } from './state.js';
import type { Session } from './state.js';

/**
 * The session state machine (api-decisions.md, Sessions): pending → connected → disconnected;
 * pending → timeout; pending|connected → error; any visible state → deleted (terminal).
 * Commands that arrive after the fact (a timeout racing a scan, a second disconnect) decide
 * nothing rather than fail: the driver reports what happened, and what happened first wins.
 */
export function decide(command: Timed<SessionCommand>, state: Session): SessionEvent[] {
  const { now } = command;
  switch (command.type) {
    case 'CreateSession':
      return create(command, state, now);
    case 'RecordQrIssued':
      return recordQr(command, state, now);
    case 'MarkConnected':
      return markConnected(command, state, now);
    case 'MarkDisconnected':
      return markDisconnected(command, state, now);
    case 'MarkTimedOut':
      return state.status === 'pending' ? [event('SessionTimedOut', { sessionId: state.sessionId, timedOutAt: iso(now) })] : [];
    case 'MarkFailed':
      return markFailed(command, state, now);
    case 'DeleteSession':
      return deleteSession(command, state, now);
    case 'RecordActivity':
      return recordActivity(command, state, now);
  }
}

function create(command: CreateSession, state: Session, now: Date): SessionEvent[] {
  // Ids are minted by the service, so an existing stream is a retry of the same creation.
  if (state.status !== 'absent') return [];
  const { sessionId, accountId, name } = command;
  return [event('SessionCreated', { sessionId, accountId, name, createdAt: iso(now) })];
}

function recordQr(command: RecordQrIssued, state: Session, now: Date): SessionEvent[] {
  if (!isVisible(state)) throw new SessionNotFound();
  if (state.status !== 'pending') throw new SessionNotPending(state.status);
  const data = {
    sessionId: state.sessionId,
    sequence: state.qrSequence + 1,
    fingerprint: command.fingerprint,
    issuedAt: iso(now),
    expiresAt: iso(command.expiresAt),
  };
  return [event('QrCodeIssued', data)];
}

function markConnected(command: MarkConnected, state: Session, now: Date): SessionEvent[] {
  if (!isVisible(state)) throw new SessionNotFound();
  // A connected session that comes back after a transient drop is still the same connection.
  if (state.status !== 'pending') return [];
  return [event('SessionConnected', { sessionId: state.sessionId, phone: command.phone, connectedAt: iso(now) })];
}

function markDisconnected(command: MarkDisconnected, state: Session, now: Date): SessionEvent[] {
  if (state.status !== 'connected' && state.status !== 'pending') return [];
  const detail = command.detail === undefined ? {} : { detail: command.detail };
  return [event('SessionDisconnected', { sessionId: state.sessionId, reason: command.reason, ...detail, disconnectedAt: iso(now) })];
}

function markFailed(command: MarkFailed, state: Session, now: Date): SessionEvent[] {
  if (state.status !== 'connected' && state.status !== 'pending') return [];
  const data = { sessionId: state.sessionId, code: command.code, reason: command.reason, failedAt: iso(now) };
  return [event('SessionFailed', data)];
}

function deleteSession(command: DeleteSession, state: Session, now: Date): SessionEvent[] {
  if (!isVisible(state)) throw new SessionNotFound();
  const data = { sessionId: state.sessionId, previousStatus: state.status, loggedOut: command.loggedOut, deletedAt: iso(now) };
  return [event('SessionDeleted', data)];
}

function recordActivity(command: RecordActivity, state: Session, now: Date): SessionEvent[] {
  if (state.status !== 'connected') return [];
  return [event('SessionActivityRecorded', { sessionId: state.sessionId, activity: command.activity, at: iso(now) })];
}

type EventOf<T extends SessionEvent['type']> = Extract<SessionEvent, { type: T }>;

function event<T extends SessionEvent['type']>(type: T, data: EventOf<T>['data']): SessionEvent {
  return { type, version: 1, data } as EventOf<T>;
}

function iso(date: Date): string {
  return date.toISOString();
}
