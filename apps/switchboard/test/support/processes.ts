import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (where nx.json is), for the built entry points (`…/dist/src/main.js`). */
export const REPO_ROOT = findUp(dirname(fileURLToPath(import.meta.url)), 'nx.json');

function findUp(dir: string, marker: string): string {
  if (existsSync(join(dir, marker))) return dir;
  const parent = dirname(dir);
  if (parent === dir) throw new Error(`no ${marker} above ${dir}`);
  return findUp(parent, marker);
}

/** A node process of ours, its output kept for the failure message of a test. */
export class NodeProcess {
  private child: ChildProcess | undefined;
  private output = '';

  constructor(
    readonly name: string,
    private readonly entry: string,
    private readonly env: Record<string, string>,
    /** Sees every chunk the process prints (the observability tests read whole runs' logs). */
    private readonly onOutput?: (name: string, chunk: string) => void,
  ) {}

  /** `env`: variables for this start only, over the process's own (a restart with another setting). */
  start(env: Record<string, string> = {}): void {
    this.output = '';
    this.child = spawn(process.execPath, [this.entry], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...this.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
      this.onOutput?.(this.name, chunk.toString());
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
  }

  /** The running process's id (benchmarks read its memory from /proc). */
  get pid(): number | undefined {
    return this.child?.exitCode === null ? this.child.pid : undefined;
  }

  /** Everything printed so far (the last 20 kB). */
  log(): string {
    return this.output;
  }

  /** Resolves with the first match of `pattern` in the output. */
  async waitForOutput(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
    const giveUpAt = Date.now() + timeoutMs;
    for (;;) {
      const match = this.output.match(pattern);
      if (match) return match;
      if (this.child?.exitCode !== null && this.child?.exitCode !== undefined) {
        throw new Error(`${this.name} exited (${this.child.exitCode}) before printing ${pattern}:\n${this.output}`);
      }
      if (Date.now() > giveUpAt) throw new Error(`${this.name} did not print ${pattern}:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** A crash: SIGKILL, no clean-up of any kind. */
  async kill(): Promise<void> {
    await this.stopWith('SIGKILL');
  }

  /** Freezes (SIGSTOP) or thaws (SIGCONT) the running process: its sockets stay open meanwhile. */
  signal(signal: 'SIGSTOP' | 'SIGCONT'): void {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) child.kill(signal);
  }

  /** A graceful stop: SIGTERM, waiting for the exit. */
  async stop(): Promise<void> {
    await this.stopWith('SIGTERM');
  }

  private async stopWith(signal: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }
}

/** Polls `url` until it answers 200 (readiness), failing with the processes' output. */
export async function waitUntilReady(url: string, processes: NodeProcess[], timeoutMs = 90_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(url).then((r) => r.status, () => 0);
    if (status === 200) return;
    if (Date.now() > giveUpAt) {
      const logs = processes.map((p) => `--- ${p.name}\n${p.log()}`).join('\n');
      throw new Error(`${url} not ready after ${timeoutMs} ms (last status ${status})\n${logs}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
