import { z } from 'zod';
import { AccountId, SessionId } from '../common/ids.js';
import { Phone } from '../common/phone.js';
import { IsoTimestamp } from '../common/time.js';
import { defineEvent } from '../events/define.js';
import { createEventParser } from '../events/parser.js';
import { SessionName, SessionStatus } from './status.js';

// Events of the `session-ses_…` streams. Timestamps live in `data` (not only in metadata) so
// `evolve` and projections are pure functions of the events alone.

/** A session was created for an account and is waiting for its first QR code. */
export const SessionCreated = defineEvent('SessionCreated', 1, {
  sessionId: SessionId,
  accountId: AccountId,
  name: SessionName.nullable(),
  createdAt: IsoTimestamp,
});
export type SessionCreated = z.infer<typeof SessionCreated>;

/**
 * The network issued a pairing code (first one or a rotation). The pairing string itself is NOT
 * stored: it embeds the device's pairing secret (adv secret and key material), and a stored copy
 * would outlive its purpose in an append-only log. The connection owner keeps the current code in
 * memory and answers GET /qr from there; the event records that a code existed, when it expires,
 * and a short SHA-256 fingerprint so an operator can match it with a client report.
 */
export const QrCodeIssued = defineEvent('QrCodeIssued', 1, {
  sessionId: SessionId,
  sequence: z.number().int().min(1),
  fingerprint: z.string().regex(/^[0-9a-f]{16}$/),
  issuedAt: IsoTimestamp,
  expiresAt: IsoTimestamp,
});
export type QrCodeIssued = z.infer<typeof QrCodeIssued>;

/** A phone scanned the QR code; the session is linked to that phone's number. */
export const SessionConnected = defineEvent('SessionConnected', 1, {
  sessionId: SessionId,
  phone: Phone,
  connectedAt: IsoTimestamp,
});
export type SessionConnected = z.infer<typeof SessionConnected>;

/**
 * Why a connected session stopped: the phone unlinked the device (`logged_out`), the connection
 * was lost and could not be restored with the stored credentials (`connection_lost`), or another
 * client took the device over (`replaced`). Deletion is its own event, SessionDeleted.
 */
export const DisconnectReason = z.enum(['logged_out', 'connection_lost', 'replaced']);
export type DisconnectReason = z.infer<typeof DisconnectReason>;

/** The session stopped being connected; it frees its plan slot. */
export const SessionDisconnected = defineEvent('SessionDisconnected', 1, {
  sessionId: SessionId,
  reason: DisconnectReason,
  /** What was behind it, when known, e.g. `dns: web.whatsapp.com could not be resolved (ENOTFOUND)`. */
  detail: z.string().min(1).max(1000).optional(),
  disconnectedAt: IsoTimestamp,
});
export type SessionDisconnected = z.infer<typeof SessionDisconnected>;

/** The QR lifetime ended without a scan. */
export const SessionTimedOut = defineEvent('SessionTimedOut', 1, {
  sessionId: SessionId,
  timedOutAt: IsoTimestamp,
});
export type SessionTimedOut = z.infer<typeof SessionTimedOut>;

/** An unrecoverable driver failure. `code` is for machines, `reason` for operators; no secrets. */
export const SessionFailed = defineEvent('SessionFailed', 1, {
  sessionId: SessionId,
  code: z.string().min(1).max(100),
  reason: z.string().min(1).max(1000),
  failedAt: IsoTimestamp,
});
export type SessionFailed = z.infer<typeof SessionFailed>;

/**
 * The session was deleted by its account: terminal (GET answers 404 afterwards), credentials
 * wiped. `previousStatus` keeps the audit trail readable; `loggedOut` says whether the logout
 * reached the network (an unreachable network must not block deletion).
 */
export const SessionDeleted = defineEvent('SessionDeleted', 1, {
  sessionId: SessionId,
  previousStatus: SessionStatus,
  loggedOut: z.boolean(),
  deletedAt: IsoTimestamp,
});
export type SessionDeleted = z.infer<typeof SessionDeleted>;

/** What touched a connected session without changing its status. */
export const SessionActivity = z.enum(['message_sent', 'receipt_received', 'message_received', 'reconnected']);
export type SessionActivity = z.infer<typeof SessionActivity>;

/**
 * Activity on a session that moves `lastActivity`. Writers may coalesce (at most one per session
 * per few seconds) so a busy session does not grow its stream with every message.
 */
export const SessionActivityRecorded = defineEvent('SessionActivityRecorded', 1, {
  sessionId: SessionId,
  activity: SessionActivity,
  at: IsoTimestamp,
});
export type SessionActivityRecorded = z.infer<typeof SessionActivityRecorded>;

export const SESSION_EVENTS = [
  SessionCreated,
  QrCodeIssued,
  SessionConnected,
  SessionDisconnected,
  SessionTimedOut,
  SessionFailed,
  SessionDeleted,
  SessionActivityRecorded,
] as const;

/** Any event of a session stream. */
export const SessionEvent = z.discriminatedUnion('type', [...SESSION_EVENTS]);
export type SessionEvent = z.infer<typeof SessionEvent>;
export type SessionEventType = SessionEvent['type'];

/** Reads a session event from the store by type + version. */
export const sessionEventParser = createEventParser(SESSION_EVENTS);
