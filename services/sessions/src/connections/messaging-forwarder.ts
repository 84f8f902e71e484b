import { setTimeout as sleep } from 'node:timers/promises';
import { MAX_RECEIPTS_PER_CALL, MessagingSubjects } from '@switchboard/contracts';
import type { RecordReceiptCommand } from '@switchboard/contracts';
import { callService, ContractViolationError, ServiceCallError } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { SpanKind, runInRootSpan, withLogFields } from '@switchboard/telemetry';
import type { Logger } from '@switchboard/telemetry';
import type { InboundEvent } from '../chat/index.js';
import type { MessagingOutbox, OutboxDelivery, OutboxEntry } from '../outbox/messaging-outbox.js';
import { forwardedContent, recordInboundCommand } from './inbound.js';
import type { MediaSource } from './media-source.js';

/** Longer than messaging's wait for a receipt's network id it does not know yet (3 s). */
const REQUEST_TIMEOUT_MS = 5_000;
/**
 * Calls to messaging under way at once (a received message, or one account's receipts, each one
 * call): a burst does not go one round trip at a time, and a call that waits (a receipt for a
 * network id messaging does not know waits 3 s) holds one of them, not everything behind it.
 */
const MAX_IN_FLIGHT = 32;
const MAX_BACKOFF_MS = 5_000;
/** A take that ended at once with nothing (a closed outbox does) is not followed by another at once. */
const IDLE_TAKE_GAP_MS = 100;
/**
 * How long an account's receipts are gathered before they go in one call: a message's delivered
 * and read receipts, and those of the messages sent just before or after it, arrive a few ms
 * apart, and each call costs messaging an append, a read-model commit and a public event per
 * batch rather than per receipt. A status moves at most this much later.
 */
export const RECEIPT_GATHER_MS = 20;

/**
 * Hands what the network reports (receipts, received messages) to the messaging service through
 * the durable outbox: an entry is written first, then taken from the outbox and sent
 * (`sb.v1.messaging.recordReceipts` / `recordInbound`) until messaging answers, however long it is
 * away, and across a restart of this process (what the outbox holds is sent again; messaging
 * records each once). The receipts of an account taken within RECEIPT_GATHER_MS go in one call
 * (up to MAX_RECEIPTS_PER_CALL). With a shared outbox (distributed mode) an entry may be sent by
 * any replica.
 * While messaging cannot be reached, sending pauses with a growing wait (up to 5 s), and the entry
 * is handed back to the outbox for that long. Only a refusal that retrying cannot change (a
 * 4xx-class error) drops an entry, logged.
 */
export class MessagingForwarder {
  /** Calls under way, and receipt calls being gathered (one per account in `#receipts`). */
  #inFlight = 0;
  #failures = 0;
  #paused: NodeJS.Timeout | undefined;
  #pausedUntil = 0;
  readonly #stopping = new AbortController();
  #taking: Promise<void> = Promise.resolve();
  readonly #sending = new Set<Promise<void>>();
  /** Received messages being written (media to the blob store, then the outbox): a stop waits for them. */
  readonly #storing = new Set<Promise<void>>();
  /** Receipts being gathered, by account, sent together when `#gathering` fires. */
  readonly #receipts = new Map<string, OutboxDelivery[]>();
  #gathering: NodeJS.Timeout | undefined;
  /** The take loop, waiting for room (a send to end, a pause to end, or stop). */
  #roomWaiter: (() => void) | undefined;

  constructor(
    private readonly bus: Bus,
    private readonly outbox: MessagingOutbox,
    private readonly media: Pick<MediaSource, 'put'>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.outbox.backlog().then(
      (entries) => entries > 0 && this.logger.info({ entries }, 'receipts and received messages from before the restart are sent to messaging again'),
      () => undefined,
    );
    this.#taking = this.#run();
  }

  /** Not awaited by the connection: the receipt is sent once it is in the outbox. */
  receipt(receipt: RecordReceiptCommand): void {
    this.outbox.add({ subject: 'recordReceipt', command: receipt }).catch((error: unknown) =>
      this.logger.error({ err: error, sessionId: receipt.sessionId }, 'receipt not written to the outbox'),
    );
  }

  /**
   * Media goes to the blob store first; resolves once the message is in the outbox. The network was
   * told it arrived and will not send it again, so a failed write (the blob store or the outbox
   * briefly away) is tried again, a few times over about 20 s, before the message is given up
   * (both writes are idempotent: the blob by its sha256, the message by its network id).
   */
  inbound(accountId: string, sessionId: string, to: string, inbound: InboundEvent): Promise<void> {
    const storing = this.#store(accountId, sessionId, to, inbound);
    const settled = storing.then(() => undefined, () => undefined);
    this.#storing.add(settled);
    void settled.then(() => this.#storing.delete(settled));
    return storing;
  }

  async #store(accountId: string, sessionId: string, to: string, inbound: InboundEvent): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const content = await forwardedContent(inbound.content, this.media);
        return await this.outbox.add({ subject: 'recordInbound', command: recordInboundCommand(accountId, sessionId, to, inbound, content) });
      } catch (error) {
        const pause = INBOUND_RETRY_MS[attempt];
        if (pause === undefined || this.#stopping.signal.aborted) throw error;
        this.logger.warn({ err: error, sessionId, attempt: attempt + 1 }, 'received message not stored yet; trying again');
        await wait(pause, this.#stopping.signal);
      }
    }
  }

  /**
   * Takes nothing more; what is still in the outbox goes out after the next start (or from another
   * replica). Resolves once the received messages being written are in the outbox or given up (an
   * attempt under way ends, and a pause between attempts is cut short: one last attempt is made) and
   * each entry being sent has its outcome in the outbox
   * (within the 5 s request timeout): close the outbox after that, or an entry another replica
   * could send at once waits for the shared outbox's ack wait.
   */
  async stop(): Promise<void> {
    this.#stopping.abort();
    await Promise.all(this.#storing);
    clearTimeout(this.#paused);
    clearTimeout(this.#gathering);
    this.#wakeTaker();
    await this.#taking;
    // Receipts taken but not sent yet: back to the outbox.
    for (const delivery of [...this.#receipts.values()].flat()) delivery.retryLater(0);
    this.#inFlight -= this.#receipts.size;
    this.#receipts.clear();
    await Promise.all(this.#sending);
  }

  /** Takes from the outbox as much as there is room for, for as long as this runs. */
  async #run(): Promise<void> {
    const signal = this.#stopping.signal;
    let failedTakes = 0;
    while (!signal.aborted) {
      await this.#room();
      if (signal.aborted) return;
      let handedOut = 0;
      const startedAt = Date.now();
      try {
        for await (const delivery of this.outbox.take(MAX_IN_FLIGHT - this.#inFlight, signal)) {
          handedOut++;
          this.#dispatch(delivery);
        }
        if (failedTakes > 0) this.logger.info('the outbox is read again');
        failedTakes = 0;
      } catch (error) {
        if (signal.aborted) return;
        // The shared outbox out of reach (NATS restarting): what it holds waits there.
        if (++failedTakes === 1) this.logger.warn({ err: error }, 'outbox not read; trying again');
        await wait(Math.min(100 * 2 ** failedTakes, MAX_BACKOFF_MS), signal);
        continue;
      }
      if (handedOut === 0 && Date.now() - startedAt < IDLE_TAKE_GAP_MS) await wait(IDLE_TAKE_GAP_MS, signal);
    }
  }

  #dispatch(delivery: OutboxDelivery): void {
    // Arrived while stopping or paused: back to the outbox, for another replica or a later attempt.
    if (this.#stopping.signal.aborted) return delivery.retryLater(0);
    if (this.#paused !== undefined) return delivery.retryLater(Math.max(0, this.#pausedUntil - Date.now()));
    const { entry } = delivery;
    if (entry.subject === 'recordInbound') {
      this.#inFlight++;
      return this.#track(this.#send([delivery]));
    }
    this.#gathering ??= setTimeout(() => {
      this.#gathering = undefined;
      this.#sendReceipts();
    }, RECEIPT_GATHER_MS);
    let batch = this.#receipts.get(entry.command.accountId);
    if (batch === undefined) {
      // A new call: it takes its place in flight now, while it is being gathered.
      this.#inFlight++;
      this.#receipts.set(entry.command.accountId, (batch = []));
    }
    batch.push(delivery);
    if (batch.length >= MAX_RECEIPTS_PER_CALL) this.#sendReceipts(entry.command.accountId);
  }

  /** Sends the receipts gathered for `accountId`, or for every account, a call per account. */
  #sendReceipts(accountId?: string): void {
    for (const account of accountId === undefined ? [...this.#receipts.keys()] : [accountId]) {
      const batch = this.#receipts.get(account);
      this.#receipts.delete(account);
      if (batch !== undefined) this.#track(this.#send(batch));
    }
  }

  /** A call counted in flight until `sending` ends. */
  #track(sending: Promise<void>): void {
    const tracked = sending.finally(() => {
      this.#inFlight--;
      this.#sending.delete(tracked);
      this.#wakeTaker();
    });
    this.#sending.add(tracked);
  }

  /** Sends one received message, or receipts in one call; each entry gets its outcome. */
  async #send(deliveries: readonly OutboxDelivery[]): Promise<void> {
    try {
      await this.#request(deliveries.map((delivery) => delivery.entry));
      this.#failures = 0;
      for (const delivery of deliveries) delivery.done();
    } catch (error) {
      if (this.#stopping.signal.aborted) return deliveries.forEach((delivery) => delivery.retryLater(0));
      // Refused for good (a 4xx-class answer, or a command that breaks the contract): dropped, not
      // retried forever. Receipts refused together are sent again one by one, so only the refused one goes.
      if ((error instanceof ServiceCallError && error.outcome === 'refused' && error.httpStatus < 500) || error instanceof ContractViolationError) {
        if (deliveries.length > 1) {
          // One after the other: a message's receipts keep their order, and one call at a time.
          for (const delivery of deliveries) await this.#send([delivery]);
          return;
        }
        const { entry } = deliveries[0]!;
        this.logger.warn({ err: error, sessionId: entry.command.sessionId, subject: entry.subject }, 'messaging refused what the network reported; dropped');
        deliveries[0]!.drop();
        return;
      }
      // Unreachable, slow or failing: back to the outbox, and a pause before anything is sent again.
      const waitMs = this.#pause();
      for (const delivery of deliveries) delivery.retryLater(waitMs);
    }
  }

  /** Starts a pause unless one runs; the time left of it. */
  #pause(): number {
    if (this.#paused === undefined) {
      this.#failures++;
      const waitMs = Math.min(100 * 2 ** this.#failures, MAX_BACKOFF_MS);
      this.#pausedUntil = Date.now() + waitMs;
      this.#paused = setTimeout(() => {
        this.#paused = undefined;
        this.#wakeTaker();
      }, waitMs);
    }
    return Math.max(0, this.#pausedUntil - Date.now());
  }

  #hasRoom(): boolean {
    return this.#stopping.signal.aborted || (this.#paused === undefined && this.#inFlight < MAX_IN_FLIGHT);
  }

  #room(): Promise<void> {
    return this.#hasRoom() ? Promise.resolve() : new Promise((resolve) => (this.#roomWaiter = resolve));
  }

  #wakeTaker(): void {
    if (this.#roomWaiter === undefined || !this.#hasRoom()) return;
    const wake = this.#roomWaiter;
    this.#roomWaiter = undefined;
    wake();
  }

  /**
   * Receipts and received messages are news from the network, not part of any request: a call
   * (one received message, or one account's receipts) starts a trace of its own (messaging links
   * each receipt to its send), with the account on its log lines.
   */
  #request(entries: readonly OutboxEntry[]): Promise<unknown> {
    const first = entries[0]!;
    const { accountId } = first.command;
    return withLogFields({ account_id: accountId }, () => {
      if (first.subject === 'recordInbound') {
        const attributes = { 'chat.inbound.type': first.command.content.type, 'chat.session.id': first.command.sessionId };
        return runInRootSpan(`chat inbound ${first.command.content.type}`, { kind: SpanKind.CONSUMER, attributes }, () =>
          callService(this.bus, MessagingSubjects.recordInbound, first.command, { timeoutMs: REQUEST_TIMEOUT_MS, accountId }));
      }
      const receipts = entries.flatMap((entry) => (entry.subject === 'recordReceipt' ? [entry.command] : []));
      return runInRootSpan('chat receipts', { kind: SpanKind.CONSUMER, attributes: { 'chat.receipts': receipts.length } }, () =>
        callService(this.bus, MessagingSubjects.recordReceipts, { accountId, receipts }, { timeoutMs: REQUEST_TIMEOUT_MS, accountId }));
    });
  }
}

/** Pauses before each new try of a received message's writes (media, outbox). */
const INBOUND_RETRY_MS = [250, 1_000, 4_000, 15_000];

/** Waits `ms`, less when `signal` aborts. */
async function wait(ms: number, signal: AbortSignal): Promise<void> {
  await sleep(ms, undefined, { signal }).catch(() => undefined);
}
