import type { RecordInboundCommand, RecordReceiptCommand } from '@switchboard/contracts';

/** What the network told a session that messaging must record: a receipt, or a received message. */
export type OutboxEntry =
  | { subject: 'recordReceipt'; command: RecordReceiptCommand }
  | { subject: 'recordInbound'; command: RecordInboundCommand };

/** One entry handed out to be sent to messaging; its sender reports exactly one outcome. */
export interface OutboxDelivery {
  readonly entry: OutboxEntry;
  /** Messaging recorded it: gone from the outbox (durable soon after, never awaited). */
  done(): void;
  /** Not recorded this time (messaging away, slow or failing): kept, handed out again, not before `afterMs`. */
  retryLater(afterMs: number): void;
  /** Refused for good: gone from the outbox without being recorded. */
  drop(): void;
}

/**
 * The port to the sessions service's durable outbox towards messaging. The network tells a
 * receipt or a message once; kept here from the moment it is heard until messaging has recorded
 * it, it outlives a messaging outage of any length and a SIGKILL of sessions. Embedded: a SQLite
 * file of this process (`SqliteMessagingOutbox`). Distributed: a JetStream work queue that every
 * replica writes to and sends from (`JetStreamMessagingOutbox`), so what a replica heard is sent
 * by another when it dies for good. An entry may be handed out more than once (after a crash, or
 * to two replicas); messaging records each once.
 */
export interface MessagingOutbox {
  /** Resolves once the entry is durable. */
  add(entry: OutboxEntry): Promise<void>;
  /**
   * Hands out at most `max` entries, each as soon as it is there: waits while there are none, ends
   * once `max` were handed out or a while has passed, and when `signal` aborts. An entry not
   * handed out stays for a later `take`.
   */
  take(max: number, signal: AbortSignal): AsyncIterable<OutboxDelivery>;
  /** Entries neither recorded nor dropped yet, whoever handed them out (an operator's backlog). */
  backlog(): Promise<number>;
  close(): Promise<void>;
}
