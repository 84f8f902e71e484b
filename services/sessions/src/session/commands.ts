import type { AccountId, DisconnectReason, Phone, SessionActivity, SessionId, SessionName } from '@switchboard/contracts';

// Commands of the session aggregate: imperative, already validated, no clock inside (decide
// receives `now`).

export interface CreateSession {
  type: 'CreateSession';
  sessionId: SessionId;
  accountId: AccountId;
  name: SessionName | null;
}
/** The network issued a pairing code; only its fingerprint and expiry are recorded. */
export interface RecordQrIssued {
  type: 'RecordQrIssued';
  fingerprint: string;
  expiresAt: Date;
}
export interface MarkConnected {
  type: 'MarkConnected';
  phone: Phone;
}
export interface MarkDisconnected {
  type: 'MarkDisconnected';
  reason: DisconnectReason;
  /** What was behind it, when known (the network could not be reached: its cause). */
  detail?: string;
}
export interface MarkTimedOut {
  type: 'MarkTimedOut';
}
export interface MarkFailed {
  type: 'MarkFailed';
  code: string;
  reason: string;
}
/** `loggedOut`: whether the logout reached the network before the deletion. */
export interface DeleteSession {
  type: 'DeleteSession';
  loggedOut: boolean;
}
export interface RecordActivity {
  type: 'RecordActivity';
  activity: SessionActivity;
}

/** A command as decided: stamped with the time it is handled at (the decider has no clock). */
export type Timed<C> = C & { now: Date };

export type SessionCommand =
  | CreateSession
  | RecordQrIssued
  | MarkConnected
  | MarkDisconnected
  | MarkTimedOut
  | MarkFailed
  | DeleteSession
  | RecordActivity;
