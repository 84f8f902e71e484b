import { connect, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';

/**
 * A loopback TCP relay in front of the emulator's WebSocket port that can hold new chat
 * connections back (the network slow to answer a handshake) while everything else on that port
 * (`GET /trust`) passes, and let them through all at once or one at a time: for tests of what a
 * client does while its connections cannot come up yet (a restart resuming stored sessions).
 */
export class ChatNetworkGate {
  private holding = false;
  private held: (() => void)[] = [];
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((client) => this.accept(client));
  /** The emulator's WebSocket URL with the relay's port: give it to Switchboard. */
  wsUrl = '';

  private constructor(private readonly target: URL) {}

  static async start(emulatorWsUrl: string): Promise<ChatNetworkGate> {
    const gate = new ChatNetworkGate(new URL(emulatorWsUrl));
    await new Promise<void>((resolve) => gate.server.listen(0, '127.0.0.1', resolve));
    const url = new URL(emulatorWsUrl);
    url.port = String((gate.server.address() as AddressInfo).port);
    gate.wsUrl = url.toString();
    return gate;
  }

  /** From now on, new chat connections wait (their sockets open, nothing answered). */
  hold(): void {
    this.holding = true;
  }

  /** Lets the held connections through, and every new one. */
  release(): void {
    this.holding = false;
    for (const open of this.held.splice(0)) open();
  }

  /** Chat connections waiting at the gate now. */
  get heldCount(): number {
    return this.held.length;
  }

  /** Lets the longest-held connection through (the gate keeps holding the others and new ones). */
  releaseOne(): void {
    this.held.shift()?.();
  }

  /** Cuts every connection through the gate at once, without a word (a network blip); new ones pass as before. */
  cut(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.release();
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private accept(client: Socket): void {
    const { target } = this;
    this.track(client);
    client.once('data', (first: Buffer) => {
      client.pause();
      const open = () => {
        if (client.destroyed) return;
        const upstream = this.track(connect(Number(target.port), target.hostname));
        // Either side gone: so is the other (a kill -9 of Switchboard drops its end at once).
        const both = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on('close', both);
        upstream.on('close', both);
        upstream.write(first);
        client.pipe(upstream).pipe(client);
      };
      const isChat = first.toString('latin1').startsWith(`GET ${target.pathname}`);
      if (this.holding && isChat) this.held.push(open);
      else open();
    });
  }

  private track(socket: Socket): Socket {
    this.sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.sockets.delete(socket));
    return socket;
  }
}
