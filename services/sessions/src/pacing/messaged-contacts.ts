import { createHash } from 'node:crypto';

/**
 * The port to a session's durable record of the numbers it has messaged, so the slower
 * first-message rate to new contacts survives a restart and a move of the session to another
 * replica (the sent log cannot tell: it is keyed by message and keeps no recipient). Numbers are
 * kept only as a hash. SQLite in the embedded mode, the JetStream KV bucket every replica reads in
 * the distributed mode; `openMessagedContacts` picks one.
 */
export interface MessagedContacts {
  /** When the session last recorded a message to `phone` (epoch ms), if it did within the retention. */
  seen(accountId: string, sessionId: string, phone: string): Promise<number | undefined>;
  /** Records a message to `phone` at `at`; `newContact`: it was the session's first to that number. */
  remember(accountId: string, sessionId: string, phone: string, at: number, newContact: boolean): Promise<void>;
  /** When the session last sent a first message to a new contact (epoch ms), if on record. */
  lastNewContactAt(accountId: string, sessionId: string): Promise<number | undefined>;
  close(): Promise<void>;
}

/**
 * A contact not messaged for this long counts as new again (and its record goes). Refreshed at
 * most every `MESSAGED_REFRESH_MS` while it is messaged, so regular contacts never expire.
 */
export const MESSAGED_RETENTION_MS = 90 * 24 * 3_600_000;
export const MESSAGED_REFRESH_MS = 7 * 24 * 3_600_000;

/** A number as stored: a SHA-256 prefix, so the record lists no phone numbers. */
export function contactHash(phone: string): string {
  return createHash('sha256').update(`switchboard-contact:${phone}`).digest('hex').slice(0, 32);
}
