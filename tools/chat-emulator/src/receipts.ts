import type { ContactSettings } from './model.js';
import type { Network } from './network.js';
import { nowSeconds } from './wire.js';
import type { Node } from './wire.js';

/**
 * Sends the recipient phone's receipts back to the sending account on the contact's schedule:
 * a delivery receipt after `deliverAfterMs`, a read receipt after `readAfterMs` (never before
 * delivery; `null` = never). An offline account gets them when it logs in again.
 */
export class ReceiptScheduler {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(private readonly network: Network) {}

  /** `chatJid` names the contact as the network does when each receipt goes out (it may move to its LID meanwhile). */
  schedule(accountPhone: string, chatJid: () => string, messageId: string, settings: ContactSettings): void {
    const { deliverAfterMs, readAfterMs } = settings;
    if (deliverAfterMs === null) return;
    // The read timer starts from the delivery: two independent timers can fire out of order when
    // the event loop runs late (Node drains all due timers of one duration before the next).
    this.later(deliverAfterMs, () => {
      this.network.deliver(accountPhone, receipt(chatJid(), messageId));
      if (readAfterMs === null) return;
      this.later(Math.max(0, readAfterMs - deliverAfterMs), () => this.network.deliver(accountPhone, receipt(chatJid(), messageId, 'read')));
    });
  }

  /**
   * A retry receipt goes out when the delivery receipt would have: the moment the phone got the
   * copy it could not decrypt (never, for a phone that never gets messages).
   */
  scheduleRetry(accountPhone: string, retryReceipt: Node, settings: ContactSettings): void {
    if (settings.deliverAfterMs === null) return;
    this.later(settings.deliverAfterMs, () => this.network.deliver(accountPhone, retryReceipt));
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }
}

const receipt = (from: string, id: string, type?: 'read'): Node => ({
  tag: 'receipt',
  attrs: { from, id, t: nowSeconds(), ...(type ? { type } : {}) },
});
