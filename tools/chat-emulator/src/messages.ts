import { resolveJid } from './addressing.js';
import { describeMessage } from './message-content.js';
import type { MediaReader } from './message-content.js';
import type { LinkedDevice } from './model.js';
import type { Network } from './network.js';
import type { ReceiptScheduler } from './receipts.js';
import { bytesOf, child, children, nowSeconds } from './wire.js';
import type { Node } from './wire.js';

/** Counters only: the emulator keeps no per-message log. */
export interface MessageStats {
  received: number;
  decrypted: number;
  failed: number;
}

/**
 * A message stanza from a linked device: the recipient contact's phone decrypts its copy and
 * records what it got; copies for the sender's own phone are not read. The network acks the
 * stanza, then the contact's receipts follow on its schedule.
 */
export class MessageRouter {
  readonly stats: MessageStats = { received: 0, decrypted: 0, failed: 0 };

  constructor(
    private readonly network: Network,
    private readonly receipts: ReceiptScheduler,
    private readonly readMedia: MediaReader,
  ) {}

  async fromClient(self: LinkedDevice, node: Node, send: (node: Node) => void): Promise<void> {
    this.stats.received++;
    const id = node.attrs.id ?? '';
    const to = node.attrs.to ?? '';
    const recipient = resolveJid(to);
    let delivered = false;
    if (recipient && recipient.phone !== self.phone && this.network.isOnNetwork(recipient.phone)) {
      for (const target of children(child(node, 'participants'), 'to')) {
        if (resolveJid(target.attrs.jid)?.phone !== recipient.phone) continue;
        delivered = (await this.decryptFor(self, recipient.phone, id, target)) || delivered;
      }
    }
    send({ tag: 'ack', attrs: { class: 'message', id, from: to, t: nowSeconds() } });
    if (delivered && recipient) this.receipts.schedule(self.phone, to, id, this.network.contact(recipient.phone));
  }

  private async decryptFor(self: LinkedDevice, phone: string, id: string, target: Node): Promise<boolean> {
    const enc = child(target, 'enc');
    const ciphertext = bytesOf(enc);
    const type = enc?.attrs.type;
    if (!ciphertext || (type !== 'pkmsg' && type !== 'msg')) return false;
    try {
      const sender = `${self.lid}:${self.deviceId}@lid`;
      const message = await this.network.peer(phone).decrypt(sender, type, ciphertext);
      this.stats.decrypted++;
      const content = await describeMessage(message, this.readMedia);
      if (content) this.network.record(phone, { id, from: self.phone, ...content, receivedAt: new Date().toISOString() });
      return true;
    } catch {
      this.stats.failed++;
      return false;
    }
  }
}
