import type { SignalPeer } from './signal-peer.js';
import { nowSeconds } from './wire.js';
import type { Node } from './wire.js';

/** Retry counts remembered per message (the newest ones); a phone gives up long before. */
const REMEMBERED = 4096;

/**
 * A contact's phone that could not decrypt a message asks the sender for it again, as WhatsApp
 * clients do: `<receipt type="retry" id=… from=<contact>>` with `<retry count id t v="1">` and its
 * `<registration>` id; from the second request of one message on, also its `<keys>`, so the sender
 * can start a new Signal session (Baileys 7 `sendRetryRequest` in lib/Socket/messages-recv.js,
 * whatsmeow `sendRetryReceipt` in retry.go). The sender answers with the message again, same id.
 */
export class RetryRequests {
  private readonly counts = new Map<string, number>();

  /** The retry receipt for a copy of `id` that `peer` (the contact's phone) failed to decrypt. */
  receipt(peer: SignalPeer, from: string, accountPhone: string, id: string, t: string | undefined): Node {
    const key = `${accountPhone}/${peer.pn}/${id}`;
    const count = (this.counts.get(key) ?? 0) + 1;
    this.counts.delete(key);
    this.counts.set(key, count);
    if (this.counts.size > REMEMBERED) this.counts.delete(this.counts.keys().next().value as string);
    const sent = t ?? nowSeconds();
    return {
      tag: 'receipt',
      attrs: { id, type: 'retry', from, t: nowSeconds() },
      content: [{ tag: 'retry', attrs: { count: String(count), id, t: sent, v: '1', error: '0' } }, ...peer.retryNodes(count > 1)],
    };
  }
}
