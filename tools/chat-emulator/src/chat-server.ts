import type { Connection, ConnectionHandler } from './connection.js';
import type { ChatStates } from './chat-states.js';
import { answerIq } from './iq-router.js';
import type { MessageRouter } from './messages.js';
import type { Network } from './network.js';
import type { ClientHello } from './noise.js';
import type { PairingService } from './pairing-service.js';
import { clientOutdated, clientVersion, isOutdated } from './versions.js';
import { child, iqResult, nowSeconds } from './wire.js';
import type { Node } from './wire.js';

/** Another connection logged in with the same device (Baileys: `DisconnectReason.connectionReplaced`). */
const replaced: Node = { tag: 'stream:error', attrs: {}, content: [{ tag: 'conflict', attrs: { type: 'replaced' } }] };
/** Credentials the network does not know (any more): Baileys reports `loggedOut`. */
const unauthorized: Node = { tag: 'failure', attrs: { reason: '401', location: 'emulator' } };

/** Routes connections: registration (QR or code pairing), login, then stanzas of a logged-in device. */
export class ChatServer implements ConnectionHandler {
  constructor(
    private readonly network: Network,
    private readonly pairing: PairingService,
    private readonly messages: MessageRouter,
    private readonly mediaHost: () => string,
    private readonly chatStates?: ChatStates,
  ) {}

  async opened(conn: Connection, hello: ClientHello): Promise<void> {
    if (isOutdated(clientVersion(hello.payload), this.network.minVersion)) return conn.end(clientOutdated);
    if (hello.payload.devicePairingData) return this.pairing.register(conn);
    this.login(conn, hello);
  }

  async stanza(conn: Connection, node: Node): Promise<void> {
    const self = conn.account;
    if (!self) {
      if (node.tag === 'iq' && node.attrs.type === 'result') this.pairing.result(conn, node);
      else if (node.tag === 'iq' && child(node, 'link_code_companion_reg')) this.pairing.companionReg(conn, node);
      else if (node.tag === 'iq') conn.send(iqResult(node));
      return;
    }
    if (node.tag === 'iq' && (node.attrs.type === 'get' || node.attrs.type === 'set')) {
      const unlinkSelf = () => this.network.unlink(self.phone);
      conn.send(answerIq({ network: this.network, self, mediaHost: this.mediaHost(), unlinkSelf }, node));
    } else if (node.tag === 'message') {
      await this.messages.fromClient(self, node, (n) => conn.send(n));
    } else if (node.tag === 'chatstate') {
      this.chatStates?.record(self, node);
    }
    // receipts, acks, presence, chat states, ib: nothing to answer
  }

  closed(conn: Connection): void {
    this.pairing.closed(conn);
    const phone = conn.account?.phone;
    if (!phone) return;
    this.network.logins.ended(phone, conn);
    if (this.network.online.get(phone) === conn) this.network.online.delete(phone);
    if (this.network.blackholed.get(phone) === conn) this.network.blackholed.delete(phone);
  }

  private login(conn: Connection, hello: ClientHello): void {
    const phone = String(hello.payload.username ?? '');
    const device = this.network.devices.get(phone);
    const noiseKey = hello.clientStatic.toString('hex');
    if (!device || device.deviceId !== (hello.payload.device ?? 0) || device.noiseKey !== noiseKey) {
      return conn.end(unauthorized);
    }
    // A black-holed connection cannot be told it is replaced, and its client has most likely given
    // up on it already (unseen: it is not read); it goes first, so it never counts as overlapping.
    this.network.blackholed.get(phone)?.drop();
    const previous = this.network.online.get(phone);
    conn.account = device;
    this.network.logins.loggedIn(phone, conn);
    this.network.online.set(phone, conn);
    // As on the real network, the older connection is ended once the newer one has logged in: for
    // that moment both are, and the device's most-at-once count shows it.
    previous?.end(replaced);
    conn.send({ tag: 'success', attrs: { t: nowSeconds(), lid: `${device.lid}:${device.deviceId}@lid`, props: '1', location: 'emulator' } });
    const held = this.network.takeOutbox(phone);
    // Marked as the real network marks what it kept for an offline device (Baileys upserts such
    // a message as `append`, not `notify`).
    for (const node of held) conn.send({ ...node, attrs: { ...node.attrs, offline: '1' } });
    conn.send({ tag: 'ib', attrs: { from: 's.whatsapp.net' }, content: [{ tag: 'offline', attrs: { count: String(held.length) } }] });
  }
}
