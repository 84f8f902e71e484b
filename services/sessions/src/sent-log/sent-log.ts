import { IDEMPOTENCY_WINDOW_MS } from '@switchboard/contracts';

/** A message the chat network acknowledged: sending it again could only repeat it. */
export interface SentRecord {
  accountId: string;
  sessionId: string;
  messageId: string;
  /** The id it carries on the network. */
  networkMessageId: string;
  /** When the network acknowledged it (ISO 8601). */
  sentAt: string;
  /** The session's linked number that sent it, when known. */
  from?: string | undefined;
}

/**
 * The port to the sessions service's durable record of what the chat network acknowledged. It
 * outlives the process (a SIGKILL included) and is read by whichever sessions process handles a
 * redelivery, so a message goes out again only when its first attempt may not have reached the
 * network. SQLite in the embedded mode (`SqliteSentLog`); the JetStream KV bucket every replica
 * reads in the distributed mode (`KvSentLog`). `openSentLog` picks one.
 */
export interface SentLog {
  /** Resolves once the record is durable: after that, a crash of this process keeps it. */
  record(sent: SentRecord): Promise<void>;
  /** The record of this message, sent through this account's session, if any. */
  find(accountId: string, sessionId: string, messageId: string): Promise<SentRecord | undefined>;
  /** Forgets records acknowledged before `cutoff`; resolves with how many. */
  forgetBefore(cutoff: Date): Promise<number>;
  close(): Promise<void>;
}

/**
 * How long a record is kept: a redelivery comes from messaging retrying (seconds) or recovering
 * after a crash, and neither outlives the 24 h in which an Idempotency-Key or a media blob is kept.
 * A redelivery later than that would be sent again under the same network id (shown once).
 */
export const SENT_LOG_RETENTION_MS = IDEMPOTENCY_WINDOW_MS;
