import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import type { Consumer, JetStreamClient, JetStreamManager, JsMsg } from '@nats-io/jetstream';
import { nanos } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@switchboard/telemetry';
import type { MessagingOutbox, OutboxDelivery, OutboxEntry } from './messaging-outbox.js';

/** The work queue every sessions replica writes its outbox entries to and sends them from (distributed mode). */
export const OUTBOX_STREAM = 'SB_SESSIONS_OUTBOX';
export const OUTBOX_SUBJECT = 'sb.sessions.outbox';
/** The one durable consumer all replicas pull from: each entry goes to one replica at a time. */
export const OUTBOX_CONSUMER = 'sessions-forwarder';

/** Twice the forwarder's 5 s request: an entry being sent is not handed to another replica meanwhile; a dead replica's go out again after it. */
const ACK_WAIT_MS = 10_000;
/** Room for 16 replicas at the forwarder's 32 in flight each: a replica that stalls holds no more than its share. */
const MAX_ACK_PENDING = 512;
/** How long one pull waits on the server for entries (it answers as soon as there are some); a stopping taker waits it out. */
const PULL_WAIT_MS = 2_000;
/** How long an entry handed back from a pull `close()` ended waits before it is handed out again. */
const CUT_PULL_LINGER_MS = 500;
/** A publish that timed out is sent again under the same message id, which the stream deduplicates. */
const PUBLISH_ATTEMPTS = 4;

export interface JetStreamMessagingOutboxOptions {
  /** Default `SB_SESSIONS_OUTBOX`; tests use their own (with their own subject). */
  stream?: string;
  /** Default `sb.sessions.outbox`. */
  subject?: string;
  /** Default `sessions-forwarder`. */
  consumer?: string;
  /** Default 10 s; set when the consumer is created. */
  ackWaitMs?: number;
  /** Default 512; set when the consumer is created. */
  maxAckPending?: number;
}

/**
 * `MessagingOutbox` on a JetStream stream that every sessions replica shares, so what a replica
 * heard is sent by another when it dies (a pod with an emptyDir leaves no file behind). The stream
 * is a work queue on file storage, deduplicated by entry id (`Nats-Msg-Id`); one durable pull
 * consumer with explicit acks hands each entry to one replica at a time: recorded is an ack (the
 * stream forgets it), refused for good a term, not now a nak with the forwarder's wait as delay,
 * and an entry never settled (its replica died) is handed out again after the ack wait. `add()`
 * resolves once the server acknowledged the publish. The connection is the caller's.
 */
export class JetStreamMessagingOutbox implements MessagingOutbox {
  /** Ends each pull under way at once. */
  readonly #pulls = new Set<() => void>();
  #closed = false;

  private constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly consumer: Consumer,
    private readonly names: { stream: string; subject: string },
    private readonly logger: Logger,
  ) {}

  /** Creates the stream and the consumer, or opens them when they exist (their stored configuration wins). */
  static async open(connection: NatsConnection, logger: Logger, options: JetStreamMessagingOutboxOptions = {}): Promise<JetStreamMessagingOutbox> {
    const stream = options.stream ?? OUTBOX_STREAM;
    const subject = options.subject ?? OUTBOX_SUBJECT;
    const durable = options.consumer ?? OUTBOX_CONSUMER;
    try {
      const jsm = await jetstreamManager(connection);
      await createOrOpen(
        () => jsm.streams.add({ name: stream, subjects: [subject], retention: RetentionPolicy.Workqueue, storage: StorageType.File, description: 'Switchboard sessions outbox: receipts and received messages for messaging' }),
        () => jsm.streams.info(stream),
      );
      await createOrOpen(
        () => jsm.consumers.add(stream, {
          durable_name: durable,
          ack_policy: AckPolicy.Explicit,
          deliver_policy: DeliverPolicy.All,
          filter_subject: subject,
          ack_wait: nanos(options.ackWaitMs ?? ACK_WAIT_MS),
          max_ack_pending: options.maxAckPending ?? MAX_ACK_PENDING,
          // Never given up: an entry leaves only once messaging recorded or refused it.
          max_deliver: -1,
        }),
        () => jsm.consumers.info(stream, durable),
      );
      const js = jetstream(connection);
      return new JetStreamMessagingOutbox(js, jsm, await js.consumers.get(stream, durable), { stream, subject }, logger);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`JetStream stream ${stream} could not be opened (the distributed mode needs NATS with JetStream, nats-server -js): ${reason}`, { cause: error });
    }
  }

  async add(entry: OutboxEntry): Promise<void> {
    const options = { msgID: randomUUID(), expect: { streamName: this.names.stream } };
    const data = JSON.stringify(entry);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.js.publish(this.names.subject, data, options);
        return;
      } catch (error) {
        if (attempt >= PUBLISH_ATTEMPTS || this.#closed) throw error;
        await sleep(250 * 2 ** attempt);
      }
    }
  }

  /**
   * One pull of at most `max` entries. A taker that stops lets the pull run out (at most 2 s, or at
   * once when the server fills it) and hands back what still comes, because a pull ended from this
   * side lingers on the server a moment (nats-server 2.9): what arrives or is handed back meanwhile
   * can land in it and wait out the ack wait. Only `close()` ends pulls at once.
   */
  async *take(max: number, signal: AbortSignal): AsyncIterable<OutboxDelivery> {
    if (signal.aborted || this.#closed) return;
    const pull = await this.consumer.fetch({ max_messages: max, expires: PULL_WAIT_MS });
    let cut = false;
    const cutShort = () => {
      cut = true;
      pull.stop();
    };
    const handBack = (message: JsMsg, afterMs: number) => settle(() => message.nak(cut ? Math.max(afterMs, CUT_PULL_LINGER_MS) : afterMs));
    this.#pulls.add(cutShort);
    try {
      for await (const message of pull) {
        // The taker stopped: back for another replica.
        if (signal.aborted || this.#closed) {
          handBack(message, 0);
          continue;
        }
        const delivery = this.#delivery(message, handBack);
        if (delivery) yield delivery;
      }
    } finally {
      this.#pulls.delete(cutShort);
      pull.stop();
    }
  }

  async backlog(): Promise<number> {
    return (await this.jsm.streams.info(this.names.stream)).state.messages;
  }

  /** Ends the pulls under way; the connection stays open: it belongs to the caller. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const stop of this.#pulls) stop();
  }

  /** The delivery of a message, or none for one that cannot be read (terminated, logged). */
  #delivery(message: JsMsg, handBack: (message: JsMsg, afterMs: number) => void): OutboxDelivery | undefined {
    const entry = readEntry(message);
    if (entry === undefined) {
      this.logger.warn({ stream: this.names.stream, seq: message.seq }, 'unreadable outbox entry; dropped');
      settle(() => message.term());
      return undefined;
    }
    return {
      entry,
      done: () => settle(() => message.ack()),
      drop: () => settle(() => message.term()),
      retryLater: (afterMs) => handBack(message, Math.max(0, Math.round(afterMs))),
    };
  }
}

/**
 * Creates, or opens what exists: replicas starting together may both create (the server accepts
 * the same configuration twice); one with another configuration (an older version's) stands.
 */
async function createOrOpen(create: () => Promise<unknown>, open: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (error) {
    await open().catch(() => {
      throw error;
    });
  }
}

/** The message's entry: the forwarder checks its command against the contract when it sends it. */
function readEntry(message: JsMsg): OutboxEntry | undefined {
  try {
    const entry = message.json<Partial<OutboxEntry>>();
    const known = entry.subject === 'recordReceipt' || entry.subject === 'recordInbound';
    return known && typeof entry.command === 'object' && entry.command !== null ? (entry as OutboxEntry) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An ack, nak or term the connection can no longer send (it closed): the server hands the entry
 * out again after the ack wait, and messaging records it once.
 */
function settle(reply: () => void): void {
  try {
    reply();
  } catch {
    // See above: redelivered.
  }
}
