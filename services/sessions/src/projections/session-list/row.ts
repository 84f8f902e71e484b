import type { SessionEvent, SessionStatus, SessionStatusReasonView, SessionView } from '@switchboard/contracts';

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
    return { sessionId, accountId, name, status: 'pending', statusReason: null, createdAt, lastActivity: createdAt };
  }
  if (row === null) return null;
  switch (event.type) {
    case 'QrCodeIssued':
      return row;
    case 'SessionConnected':
      return moved(row, 'connected', event.data.connectedAt, null);
    case 'SessionDisconnected':
      return moved(row, 'disconnected', event.data.disconnectedAt, disconnectReason(event.data.reason, event.data.detail));
    case 'SessionTimedOut':
      return moved(row, 'timeout', event.data.timedOutAt, { code: 'qr_timeout', message: 'No phone scanned a QR code before the codes ran out; create a new session.' });
    case 'SessionFailed':
      return moved(row, 'error', event.data.failedAt, { code: event.data.code, message: sentence(event.data.reason) });
    case 'SessionDeleted':
      return null;
    case 'SessionActivityRecorded':
      return Date.parse(event.data.at) > Date.parse(row.lastActivity) ? { ...row, lastActivity: event.data.at } : row;
  }
}

function moved(row: SessionListRow, status: SessionStatus, at: string, statusReason: SessionStatusReasonView): SessionListRow {
  return { ...row, status, statusReason, lastActivity: at };
}

const DISCONNECT_MESSAGES = {
  logged_out: 'The device was unlinked from the phone (or logged out); create a new session to link it again.',
  connection_lost: 'The connection to the chat network was lost and could not be restored',
  replaced: 'Another client took over this device\'s connection.',
} as const;

/** `disconnected`'s reason, with the network's cause when the connection could not be restored. */
export function disconnectReason(reason: keyof typeof DISCONNECT_MESSAGES, detail: string | undefined): SessionStatusReasonView {
  const message = DISCONNECT_MESSAGES[reason];
  return { code: reason, message: detail === undefined ? sentence(message) : `${message} (${detail}).` };
}

/** A reason as a sentence: capitalised, with a full stop. */
function sentence(text: string): string {
  const capitalised = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}
