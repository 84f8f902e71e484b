import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

/** A ```sh block of the README: what a reader pastes into a terminal. */
export interface ShellBlock {
  /** 1-based line of the opening fence, for messages. */
  line: number;
  code: string;
}

/** Every ```sh block of `markdown`, in order. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const blocks: ShellBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    if (end < 0) throw new Error(`README line ${i + 1}: a \`\`\`sh block is never closed`);
    blocks.push({ line: i + 1, code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

/**
 * The block as this machine pastes it: each `[written, here]` replaced everywhere (the README's
 * ports, data dirs and the `sbk_…` a reader copies from the first start's output).
 */
export function pasted(code: string, replacements: readonly (readonly [string, string])[]): string {
  return replacements.reduce((text, [written, here]) => text.split(written).join(here), code);
}

/**
 * A reader's terminal: the machine's PATH without any project's `node_modules/.bin` (npm scripts
 * put ours first), none of the test runner's or npm's variables, and `extra` on top.
 */
export function terminalEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const path = (process.env['PATH'] ?? '').split(':').filter((dir) => !dir.includes('node_modules/.bin')).join(':');
  const keep = ['HOME', 'USER', 'LANG', 'TERM', 'TMPDIR'].filter((name) => process.env[name] !== undefined);
  return { ...Object.fromEntries(keep.map((name) => [name, process.env[name]])), PATH: path, ...extra };
}

/** A pasted block run by `bash -c` in a process group of its own, so that stopping it stops all it started. */
export class ShellRun {
  private output = '';
  private readonly exit: Promise<number | null>;
  private readonly child: ChildProcess;

  constructor(script: string, options: { cwd: string; env: NodeJS.ProcessEnv }) {
    this.child = spawn('bash', ['-eo', 'pipefail', '-c', script], { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const keep = (chunk: Buffer) => (this.output = (this.output + chunk.toString()).slice(-200_000));
    this.child.stdout!.on('data', keep);
    this.child.stderr!.on('data', keep);
    this.exit = new Promise((resolve) => this.child.once('close', (code) => resolve(code)));
  }

  /** Everything printed so far (stdout and stderr, the last 200 kB). */
  log(): string {
    return this.output;
  }

  /** The exit code of bash once it ends (what started in the background may still run). */
  async finished(timeoutMs: number): Promise<number | null> {
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(resolve, timeoutMs, 'timeout').unref());
    const result = await Promise.race([this.exit, timeout]);
    if (result === 'timeout') throw new Error(`still running after ${timeoutMs} ms:\n${this.output}`);
    return result;
  }

  /** Resolves once `url` answers 200; fails with the output when bash ends first or time is up. */
  async untilOk(url: string, timeoutMs: number): Promise<void> {
    const giveUpAt = Date.now() + timeoutMs;
    for (;;) {
      if (await fetch(url).then((r) => r.ok, () => false)) return;
      if (this.child.exitCode !== null && !this.groupAlive()) throw new Error(`exited (${this.child.exitCode}) before ${url} answered:\n${this.output}`);
      if (Date.now() > giveUpAt) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** Resolves with the first match of `pattern` in the output. */
  async untilPrinted(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    const giveUpAt = Date.now() + timeoutMs;
    for (;;) {
      const match = this.output.match(pattern);
      if (match) return match;
      if (Date.now() > giveUpAt) throw new Error(`${pattern} not printed within ${timeoutMs} ms:\n${this.output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** SIGTERM to the whole group (as a terminal's Ctrl-C reaches it); SIGKILL what is left after `graceMs`. */
  async stop(graceMs = 20_000): Promise<void> {
    this.signalGroup('SIGTERM');
    const giveUpAt = Date.now() + graceMs;
    while (this.groupAlive() && Date.now() < giveUpAt) await new Promise((resolve) => setTimeout(resolve, 100));
    if (this.groupAlive()) this.signalGroup('SIGKILL');
    await this.exit;
  }

  private groupAlive(): boolean {
    try {
      process.kill(-this.child.pid!, 0);
      return true;
    } catch {
      return false;
    }
  }

  private signalGroup(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid!, signal);
    } catch {
      // The group is gone already.
    }
  }
}
