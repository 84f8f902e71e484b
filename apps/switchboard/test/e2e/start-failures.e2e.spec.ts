import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedLoopbackPort } from '@switchboard/bus/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/processes.js';

const EMBEDDED = join(REPO_ROOT, 'apps/switchboard/dist/src/embedded.js');

interface Run {
  code: number | null;
  /** The signal that ended the process, when one did (a crash shows here, with its stderr). */
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * `npm start` as a new user runs it, with `env` on top of a private data dir and ports. Resolves
 * when the process exits, or once it says it listens (then it is stopped with SIGTERM).
 */
function start(env: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [EMBEDDED], { cwd: REPO_ROOT, env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let stopped = false;
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // Once: a second SIGTERM (sent for a log line printed while stopping) would kill it outright.
      if (!stopped && /Switchboard listening on/.test(stdout) && /Chat network emulator/.test(stdout)) {
        stopped = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    // 'close', not 'exit': a process's last output (its log lines are written asynchronously) may
    // still be in the pipe when it exits.
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

describe('a start that cannot go ahead says why and creates nothing (embedded, as npm start)', () => {
  let dataDir: string;
  let base: Record<string, string>;
  const held: Server[] = [];

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sb-start-'));
    base = {
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_CHAT_NETWORK: 'emulator',
      SWITCHBOARD_PORT: String(await closedLoopbackPort()),
      SWITCHBOARD_EMULATOR_CONTROL_PORT: String(await closedLoopbackPort()),
      SWITCHBOARD_EMULATOR_PORT: String(await closedLoopbackPort()),
    };
  });
  afterEach(async () => {
    await Promise.all(held.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each([
    [{ SWITCHBOARD_PORT: 'abc' }, ['switchboard: SWITCHBOARD_PORT: expected a port number (0-65535), got "abc"']],
    [{ SWITCHBOARD_CHAT_NETWORK: 'telegram' }, ['switchboard: SWITCHBOARD_CHAT_NETWORK: expected "whatsapp" or "emulator", got "telegram"']],
    [{ SWITCHBOARD_DEFAULT_PLAN: 'gold', SWITCHBOARD_SECRET_KEY: 'not-a-key' }, [
      'switchboard: SWITCHBOARD_SECRET_KEY: expected 32 bytes as 64 hex characters or base64 (make one with: openssl rand -hex 32) (value not shown)',
      'switchboard: SWITCHBOARD_DEFAULT_PLAN: expected "free", "basic", "premium" or "enterprise", got "gold"',
    ]],
  ])('bad configuration %o: exit 1, one line per problem, no stack, no key', async (env, lines) => {
    const run = await start({ ...base, ...env });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual(lines);
    expect(run.stdout).not.toMatch(/API key/);
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it('a port in use stops the first start before the account exists; the next start shows its key once, the one after says how to make another', async () => {
    const port = Number(base['SWITCHBOARD_PORT']);
    const server = createServer();
    held.push(server);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    const refused = await start(base);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([`switchboard: SWITCHBOARD_PORT: 127.0.0.1:${port} is already in use (another process listens there)`]);
    expect(refused.stdout).not.toMatch(/API key/);
    await new Promise((resolve) => server.close(resolve));
    held.length = 0;

    const first = await start(base);
    expect(first.stdout).toContain(`Chat network emulator: ws://127.0.0.1:${base['SWITCHBOARD_EMULATOR_PORT']}/ws/chat, control API http://127.0.0.1:${base['SWITCHBOARD_EMULATOR_CONTROL_PORT']}`);
    expect(first.stdout).toMatch(/First start: account acc_\w+ was created\. Its API key \(shown once\):\n\n {2}sbk_/);
    const second = await start(base);
    expect(second.stdout).not.toMatch(/sbk_/);
    expect(second.stdout).toContain(`Accounts exist in ${dataDir}; the first key was shown on the first start only. A new key: npx switchboard keys create acc_00000000000000000000000000`);
  });

  it('refuses a data dir whose secrets were sealed with another key (npm start generated one, then another is given)', async () => {
    await start(base);
    const other = await start({ ...base, SWITCHBOARD_SECRET_KEY: 'ab'.repeat(32) });
    expect(other.code).toBe(1);
    expect(other.stderr.trim().split('\n')).toEqual([
      `switchboard: SWITCHBOARD_SECRET_KEY: ${join(dataDir, 'sessions')} holds secrets sealed with another key; start with the key it was made with, or give this key its own SWITCHBOARD_DATA_DIR`,
    ]);
    const again = await start(base);
    expect({ code: again.code, signal: again.signal }, again.stderr).toEqual({ code: 0, signal: null });
  });

  it('says so when SWITCHBOARD_BOOTSTRAP_API_KEY is ignored because the data dir already has accounts', async () => {
    await start(base);
    const again = await start({ ...base, SWITCHBOARD_BOOTSTRAP_API_KEY: `sbk_${'k'.repeat(40)}` });
    expect(again.stdout + again.stderr).toMatch(/SWITCHBOARD_BOOTSTRAP_API_KEY is ignored: this data dir already has accounts/);
  });
});
