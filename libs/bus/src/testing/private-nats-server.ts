import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer, connect as tcpConnect } from 'node:net';

const NATS_SERVER_BINARY = process.env['NATS_SERVER_BINARY'] ?? '/usr/sbin/nats-server';

/** A loopback port nobody listens on (bound and released by us just now). */
export async function closedLoopbackPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** A private nats-server on a loopback port, for tests that stop and restart it. */
export class PrivateNatsServer {
  private process: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateNatsServer> {
    const server = new PrivateNatsServer(await closedLoopbackPort());
    await server.restart();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** Starts the server on the same port (again) and waits until it accepts connections. */
  async restart(): Promise<void> {
    this.process = spawn(NATS_SERVER_BINARY, ['-a', '127.0.0.1', '-p', String(this.port)], { stdio: 'ignore' });
    const giveUpAt = Date.now() + 5_000;
    while (!(await acceptsConnections(this.port))) {
      if (Date.now() > giveUpAt) throw new Error(`nats-server did not start on port ${this.port}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Stops this server (only the process we started) and waits for it to exit. */
  async stop(): Promise<void> {
    const running = this.process;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
    this.process = undefined;
  }
}

function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: '127.0.0.1', port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
