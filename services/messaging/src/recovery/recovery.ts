import { runInRootSpan, spanContextFromTraceparent } from '@switchboard/telemetry';
import type { Logger } from '@switchboard/telemetry';
import type { Clock } from '../application/clock.js';
import type { MessageStore } from '../application/message-store.js';
import type { MessageStatusQueries } from '../projections/message-status/queries.js';
import type { Delivery } from '../send/delivery.js';

export interface RecoveryOptions {
  messages: MessageStore;
  statuses: MessageStatusQueries;
  delivery: Delivery;
  clock: Clock;
  logger: Logger;
  /** A pending message older than this, not being delivered here, is taken over by the sweep. */
  staleAfterMs: number;
  intervalMs?: number;
  concurrency?: number;
}

/**
 * Finishes what a crash (or a lost reply) left open: messages accepted but neither sent nor failed
 * are delivered again with the SAME message id (sessions never sends an id twice), and failures
 * still owed a refund are refunded. Runs once at start for everything open, then periodically for
 * messages stale beyond any live request.
 */
export class Recovery {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;
  private stopped = false;

  constructor(private readonly o: RecoveryOptions) {}

  start(): void {
    this.trigger(0);
    this.timer = setInterval(() => this.trigger(this.o.staleAfterMs), this.o.intervalMs ?? 30_000);
    this.timer.unref();
  }

  /** One sweep over messages accepted at least `olderThanMs` ago; resolves with how many it handled. */
  sweep(olderThanMs: number): Promise<number> {
    this.sweeping ??= this.run(olderThanMs).finally(() => (this.sweeping = undefined));
    return this.sweeping;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.sweeping?.catch(() => undefined);
  }

  private trigger(olderThanMs: number): void {
    this.sweep(olderThanMs).catch((error: unknown) => this.o.logger.error({ err: error }, 'recovery sweep failed'));
  }

  private async run(olderThanMs: number): Promise<number> {
    const before = new Date(this.o.clock.now().getTime() - olderThanMs).toISOString();
    const open = this.o.statuses.unfinished(before).filter((id) => !this.o.delivery.isInFlight(id));
    if (open.length > 0) this.o.logger.info({ count: open.length }, 'recovering unfinished messages');
    let next = 0;
    const worker = async (): Promise<void> => {
      while (!this.stopped && next < open.length) {
        const messageId = open[next++]!;
        await this.finish(messageId);
      }
    };
    await Promise.all(Array.from({ length: this.o.concurrency ?? 8 }, worker));
    return open.length;
  }

  /** Each recovered message in a trace of its own, LINKED to the request that accepted it. */
  private async finish(messageId: string): Promise<void> {
    const accepted = spanContextFromTraceparent(await this.o.messages.traceparent(messageId).catch(() => undefined));
    const options = { links: accepted ? [{ context: accepted }] : [], attributes: { 'switchboard.message.id': messageId } };
    await runInRootSpan('recover message', options, () => this.finishNow(messageId));
  }

  private async finishNow(messageId: string): Promise<void> {
    try {
      const state = await this.o.messages.load(messageId);
      if (state.status === 'pending') {
        const outcome = await this.o.delivery.deliver(messageId);
        this.o.logger.info({ messageId, status: outcome.status }, 'recovered message');
      } else if (state.status === 'failed') {
        await this.o.delivery.refund(state);
      }
    } catch (error) {
      this.o.logger.error({ messageId, err: error }, 'could not recover message; next sweep retries');
    }
  }
}
