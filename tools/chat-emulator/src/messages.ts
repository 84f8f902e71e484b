import { resolveJid } from './addressing.js';
import type { Addressing } from './inbound-spec.js';
import { describeMessage } from './message-content.js';
import type { MediaReader } from './message-content.js';
import { lidForPhone } from './model.js';
import type { LinkedDevice } from './model.js';
import type { Network } from './network.js';
import type { ReceiptScheduler } from './receipts.js';
import { RetryRequests } from './retries.js';
import { bytesOf, child, children, nowSeconds } from './wire.js';
import type { Node } from './wire.js';

/** Counters only: the emulator keeps no per-message log. */
export interface MessageStats {
  received: number;
  decrypted: number;
  failed: number;
}

/** What a contact's copy came to: shown, failed (and asked for again), or not for a contact at all. */
type Decrypted = 'shown' | 'failed' | 'none';

/**
 * A message stanza from a linked device: the recipient contact's phone decrypts its copy and
 * records what it got; copies for the sender's own phone are not read. The network acks the
 * stanza, then the contact's receipts follow on its schedule, or, for a copy its phone failed to
 * decrypt (`failDecryptNext` / `failDecryptRate`), a retry receipt. In `lid` addressing the
 * receipts name the contact by its LID, as WhatsApp does for contacts it moved to LIDs; in `pn`
 * they name the jid the message was sent to.
 */
export class MessageRouter {
  readonly stats: MessageStats = { received: 0, decrypted: 0, failed: 0 };
  private readonly retries = new RetryRequests();

  constructor(
    private readonly network: Network,
    private readonly receipts: ReceiptScheduler,
    private readonly readMedia: MediaReader,
    private readonly addressing: Addressing = 'lid',
  ) {}

  async fromClient(self: LinkedDevice, node: Node, send: (node: Node) => void): Promise<void> {
    this.stats.received++;
    const id = node.attrs.id ?? '';
    const to = node.attrs.to ?? '';
    const recipient = resolveJid(to);
    let outcome: Decrypted = 'none';
    if (recipient && recipient.phone !== self.phone && this.network.isOnNetwork(recipient.phone)) {
      for (const target of children(child(node, 'participants'), 'to')) {
        if (resolveJid(target.attrs.jid)?.phone !== recipient.phone) continue;
        const copy = await this.decryptFor(self, recipient.phone, id, target);
        if (outcome !== 'shown' && copy !== 'none') outcome = copy;
      }
    }
    send({ tag: 'ack', attrs: { class: 'message', id, from: to, t: nowSeconds() } });
    if (!recipient || outcome === 'none') return;
    const contact = this.network.contact(recipient.phone);
    const from = () => ((this.network.contact(recipient.phone).addressing ?? this.addressing) === 'lid' ? `${lidForPhone(recipient.phone)}@lid` : to);
    if (outcome === 'shown') return this.receipts.schedule(self.phone, from, id, contact);
    const retry = this.retries.receipt(this.network.peer(recipient.phone), from(), self.phone, id, node.attrs.t);
    this.receipts.scheduleRetry(self.phone, retry, contact);
  }

  private async decryptFor(self: LinkedDevice, phone: string, id: string, target: Node): Promise<Decrypted> {
    const enc = child(target, 'enc');
    const ciphertext = bytesOf(enc);
    const type = enc?.attrs.type;
    if (!ciphertext || (type !== 'pkmsg' && type !== 'msg')) return 'none';
    // Left undecrypted (its Signal state untouched), as a phone whose decryption failed ("Bad MAC").
    if (this.network.failsToDecrypt(phone)) {
      this.stats.failed++;
      return 'failed';
    }
    try {
      const sender = `${self.lid}:${self.deviceId}@lid`;
      const message = await this.network.peer(phone).decrypt(sender, type, ciphertext);
      this.stats.decrypted++;
      const content = await describeMessage(message, this.readMedia);
      if (content) this.network.record(phone, { id, from: self.phone, ...content, receivedAt: new Date().toISOString() });
      return 'shown';
    } catch {
      this.stats.failed++;
      return 'none';
    }
  }
}
