import type { SessionEvent, SessionStatus, SessionView } from '@switchboard/contracts';

/** One session as the list read model keeps it (a SessionView plus its owner). */
export interface SessionListRow extends SessionView {
  accountId: string;
}

/**
 * Pure projection step: the row after `event`, or null when the session is not (or no longer)
 * listed. A deleted session leaves the read model entirely; its events stay in the stream.
 */
export function evolveRow(row: SessionListRow | null, event: SessionEvent): SessionListRow | null {
  if (event.type === 'SessionCreated') {
    const { sessionId, accountId, name, createdAt } = event.data;
    return { sessionId, accountId, name, status: 'pending', createdAt, lastActivity: createdAt };
  }
  if (row === null) return null;
  switch (event.type) {
    case 'QrCodeIssued':
      return row;
    case 'SessionConnected':
      return moved(row, 'connected', event.data.connectedAt);
    case 'SessionDisconnected':
      return moved(row, 'disconnected', event.data.disconnectedAt);
    case 'SessionTimedOut':
      return moved(row, 'timeout', event.data.timedOutAt);
    case 'SessionFailed':
      return moved(row, 'error', event.data.failedAt);
    case 'SessionDeleted':
      return null;
    case 'SessionActivityRecorded':
      return Date.parse(event.data.at) > Date.parse(row.lastActivity) ? { ...row, lastActivity: event.data.at } : row;
  }
}

function moved(row: SessionListRow, status: SessionStatus, at: string): SessionListRow {
  return { ...row, status, lastActivity: at };
}
