import { decodeBinaryNode, encodeBinaryNode, proto } from '@whiskeysockets/baileys';
import type { WebSocket } from 'ws';
import { FrameReader, encodeFrame } from './frames.js';
import type { LinkedDevice } from './model.js';
import type { LiveLink } from './network.js';
import { ServerNoise } from './noise.js';
import type { ClientHello } from './noise.js';
import type { KeyPair } from '@whiskeysockets/baileys';
import type { Node } from './wire.js';

/** The server's Noise identity: static key pair and the certificate chain vouching for it. */
export interface ServerIdentity {
  staticKey: KeyPair;
  certChain: Uint8Array;
}

/** What the network does with a connection once the handshake is done. */
export interface ConnectionHandler {
  opened(conn: Connection, hello: ClientHello): Promise<void>;
  stanza(conn: Connection, node: Node): Promise<void>;
  closed(conn: Connection): void;
}

type Phase = 'hello' | 'finish' | 'open' | 'closed';

/** One client WebSocket: Noise handshake, framing, then stanzas handled strictly in order. */
export class Connection implements LiveLink {
  account: LinkedDevice | undefined;
  hello: ClientHello | undefined;
  private phase: Phase = 'hello';
  private readonly reader = new FrameReader();
  private readonly noise: ServerNoise;
  private queue: Promise<void> = Promise.resolve();
  /** Black-holed: nothing is read from the client or written to it, the socket stays open. */
  private silent = false;
  /** Messages `ws` had already read when the black hole began: handled once it ends. */
  private held: Buffer[] = [];

  constructor(
    private readonly ws: WebSocket,
    identity: ServerIdentity,
    private readonly handler: ConnectionHandler,
    private readonly onError: (error: unknown) => void,
  ) {
    this.noise = new ServerNoise(identity.staticKey, identity.certChain);
    ws.on('message', (data: Buffer) => (this.silent ? this.held.push(data) : this.enqueue(() => this.receive(data))));
    ws.on('close', () => this.markClosed());
    ws.on('error', () => this.markClosed());
  }

  get isOpen(): boolean {
    return this.phase === 'open';
  }

  send(node: Node): void {
    if (this.phase !== 'open' || this.silent) return;
    this.ws.send(encodeFrame(this.noise.encryptFrame(encodeBinaryNode(node))));
  }

  /**
   * A dead path that still looks open: the socket is no longer read (so not even WebSocket control
   * frames are answered: a client's close handshake never completes, as on a real black hole) and
   * nothing is sent.
   */
  blackhole(): void {
    this.silent = true;
    this.ws.pause();
  }

  /** The path is back: what the client sent meanwhile arrives now, late, in order. */
  restore(): void {
    if (!this.silent) return;
    this.silent = false;
    for (const data of this.held.splice(0)) this.enqueue(() => this.receive(data));
    this.ws.resume();
  }

  end(finalNode?: Node): void {
    if (finalNode) this.send(finalNode);
    this.markClosed();
    this.ws.close();
  }

  drop(): void {
    this.markClosed();
    this.ws.terminate();
  }

  private enqueue(task: () => Promise<void>): void {
    this.queue = this.queue.then(task).catch((error: unknown) => {
      this.onError(error);
      this.drop();
    });
  }

  private async receive(data: Buffer): Promise<void> {
    for (const frame of this.reader.push(data)) {
      if (this.phase === 'closed') return;
      await this.onFrame(frame);
    }
  }

  private async onFrame(frame: Buffer): Promise<void> {
    if (this.phase === 'hello') {
      const { clientHello } = proto.HandshakeMessage.decode(frame);
      if (!clientHello?.ephemeral) throw new Error('expected client hello');
      this.ws.send(encodeFrame(this.noise.serverHello(clientHello.ephemeral)));
      this.phase = 'finish';
    } else if (this.phase === 'finish') {
      const { clientFinish } = proto.HandshakeMessage.decode(frame);
      if (!clientFinish) throw new Error('expected client finish');
      this.hello = this.noise.clientFinish(clientFinish);
      this.phase = 'open';
      await this.handler.opened(this, this.hello);
    } else {
      const node = await decodeBinaryNode(this.noise.decryptFrame(frame));
      await this.handler.stanza(this, node);
    }
  }

  private markClosed(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.handler.closed(this);
  }
}
