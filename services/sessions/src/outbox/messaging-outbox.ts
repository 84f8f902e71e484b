import type { RecordInboundCommand, RecordReceiptCommand } from '@switchboard/contracts';

/** What the network told a session that messaging must record: a receipt, or a received message. */
export type OutboxEntry =
  | { subject: 'recordReceipt'; command: RecordReceiptCommand }
  | { subject: 'recordInbound'; command: RecordInboundCommand };

export interface StoredEntry {
  /** Unique per entry; removal is by this id. */
  id: string;
  entry: OutboxEntry;
}

/**
 * The port to the sessions service's durable outbox towards messaging. The network tells a
 * receipt or a message once; kept here from the moment it is heard until messaging has recorded
 * it, it outlives a messaging outage of any length and a SIGKILL of sessions. SQLite today
 * (`SqliteMessagingOutbox`); the shared sessions store once several replicas share sessions.
 */
export interface MessagingOutbox {
  /** Resolves once the entry is durable. */
  add(entry: OutboxEntry): Promise<StoredEntry>;
  /** Every entry not yet removed, oldest first (what a restart sends again). */
  pending(): StoredEntry[];
  /** Messaging has recorded it (or refused it for good); durable soon after, never awaited. */
  remove(id: string): void;
  close(): Promise<void>;
}
