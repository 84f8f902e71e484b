import { MessagingSubjects } from '@switchboard/contracts';
import type { RecordReceiptCommand } from '@switchboard/contracts';
import { callService, ContractViolationError, ServiceCallError } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { SpanKind, runInRootSpan, withLogFields } from '@switchboard/telemetry';
import type { Logger } from '@switchboard/telemetry';
import type { InboundEvent } from '../chat/index.js';
import type { MessagingOutbox, OutboxEntry, StoredEntry } from '../outbox/messaging-outbox.js';
import { forwardedContent, recordInboundCommand } from './inbound.js';
import type { MediaSource } from './media-source.js';

const REQUEST_TIMEOUT_MS = 5_000;
/** Entries sent at once: a burst of receipts does not go one round trip at a time. */
const MAX_IN_FLIGHT = 32;
const MAX_BACKOFF_MS = 5_000;

/**
 * Hands what the network reports (receipts, received messages) to the messaging service through
 * the durable outbox: an entry is written first, then sent (`sb.v1.messaging.recordReceipt` /
 * `recordInbound`) until messaging answers, however long it is away, and across a restart of
 * this process (what the outbox holds is sent again at start; messaging records each once).
 * While messaging cannot be reached, sending pauses with a growing wait (up to 5 s).
 * Only a refusal that retrying cannot change (a 4xx-class error) drops an entry, logged.
 */
export class MessagingForwarder {
  #queue: StoredEntry[];
  #inFlight = 0;
  #failures = 0;
  #paused: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(
    private readonly bus: Bus,
    private readonly outbox: MessagingOutbox,
    private readonly media: Pick<MediaSource, 'put'>,
    private readonly logger: Logger,
  ) {
    this.#queue = outbox.pending();
    if (this.#queue.length > 0) logger.info({ entries: this.#queue.length }, 'receipts and received messages from before the restart are sent to messaging again');
  }

  start(): void {
    this.#pump();
  }

  /** Not awaited by the connection: the receipt is sent once it is in the outbox. */
  receipt(receipt: RecordReceiptCommand): void {
    this.#add({ subject: 'recordReceipt', command: receipt }).catch((error: unknown) =>
      this.logger.error({ err: error, sessionId: receipt.sessionId }, 'receipt not written to the outbox'),
    );
  }

  /** Media goes to the blob store first; resolves once the message is in the outbox. */
  async inbound(accountId: string, sessionId: string, to: string, inbound: InboundEvent): Promise<void> {
    const content = await forwardedContent(inbound.content, this.media);
    await this.#add({ subject: 'recordInbound', command: recordInboundCommand(accountId, sessionId, to, inbound, content) });
  }

  /** Sends nothing more; what is still in the outbox goes out after the next start. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#paused);
  }

  async #add(entry: OutboxEntry): Promise<void> {
    const stored = await this.outbox.add(entry);
    this.#queue.push(stored);
    this.#pump();
  }

  #pump(): void {
    while (!this.#stopped && this.#paused === undefined && this.#inFlight < MAX_IN_FLIGHT && this.#queue.length > 0) {
      const next = this.#queue.shift()!;
      this.#inFlight++;
      void this.#send(next).finally(() => {
        this.#inFlight--;
        this.#pump();
      });
    }
  }

  async #send(stored: StoredEntry): Promise<void> {
    const { entry } = stored;
    try {
      await this.#request(entry);
      this.#failures = 0;
      this.outbox.remove(stored.id);
    } catch (error) {
      if (this.#stopped) return;
      // Refused for good (a 4xx-class answer, or a command that breaks the contract): dropped, not retried forever.
      if ((error instanceof ServiceCallError && error.outcome === 'refused' && error.httpStatus < 500) || error instanceof ContractViolationError) {
        this.logger.warn({ err: error, sessionId: entry.command.sessionId, subject: entry.subject }, 'messaging refused what the network reported; dropped');
        this.outbox.remove(stored.id);
        return;
      }
      // Unreachable, slow or failing: back in the queue, and a pause before anything is sent again.
      this.#queue.unshift(stored);
      this.#pause();
    }
  }

  #pause(): void {
    if (this.#paused !== undefined) return;
    this.#failures++;
    const waitMs = Math.min(100 * 2 ** this.#failures, MAX_BACKOFF_MS);
    this.#paused = setTimeout(() => {
      this.#paused = undefined;
      this.#pump();
    }, waitMs);
  }

  /**
   * A receipt or a received message is news from the network, not part of any request: it starts
   * a trace of its own (messaging links it to the send), with the account on its log lines.
   */
  #request(entry: OutboxEntry): Promise<unknown> {
    const { command } = entry;
    const [name, attributes] =
      entry.subject === 'recordReceipt'
        ? [`chat receipt ${entry.command.receipt}`, { 'chat.receipt': entry.command.receipt, 'chat.session.id': command.sessionId }]
        : [`chat inbound ${entry.command.content.type}`, { 'chat.inbound.type': entry.command.content.type, 'chat.session.id': command.sessionId }];
    return withLogFields({ account_id: command.accountId }, () =>
      runInRootSpan(name, { kind: SpanKind.CONSUMER, attributes }, () =>
        callService(this.bus, MessagingSubjects[entry.subject], command, { timeoutMs: REQUEST_TIMEOUT_MS, accountId: command.accountId }),
      ),
    );
  }
}
