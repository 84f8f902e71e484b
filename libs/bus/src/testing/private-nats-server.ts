import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedLoopbackPort } from './closed-loopback-port.js';

const NATS_SERVER_BINARY = process.env['NATS_SERVER_BINARY'] ?? '/usr/sbin/nats-server';

export interface PrivateNatsServerOptions {
  /**
   * Enables JetStream (`-js`) with its store in a fresh temporary folder, kept across `restart()`
   * (so streams and object stores survive it) and removed by `stop({ removeStore: true })`.
   */
  jetstream?: boolean;
}

/** A private nats-server on a loopback port, for tests that stop and restart it. */
export class PrivateNatsServer {
  private process: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    private readonly storeDir: string | undefined,
  ) {}

  static async start(options: PrivateNatsServerOptions = {}): Promise<PrivateNatsServer> {
    const storeDir = options.jetstream ? mkdtempSync(join(tmpdir(), 'nats-js-')) : undefined;
    const server = new PrivateNatsServer(await closedLoopbackPort(), storeDir);
    await server.restart();
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** The running server's process id (benchmarks read its CPU). */
  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** Starts the server on the same port (again) and waits until it accepts connections. */
  async restart(): Promise<void> {
    const jetstream = this.storeDir === undefined ? [] : ['-js', '-sd', this.storeDir];
    this.process = spawn(NATS_SERVER_BINARY, ['-a', '127.0.0.1', '-p', String(this.port), ...jetstream], { stdio: 'ignore' });
    const giveUpAt = Date.now() + 5_000;
    while (!(await acceptsConnections(this.port))) {
      if (Date.now() > giveUpAt) throw new Error(`nats-server did not start on port ${this.port}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Stops this server (only the process we started) and waits for it to exit. */
  async stop(options: { removeStore?: boolean } = {}): Promise<void> {
    const running = this.process;
    if (running && running.exitCode === null) {
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    }
    this.process = undefined;
    if (options.removeStore && this.storeDir !== undefined) rmSync(this.storeDir, { recursive: true, force: true });
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
