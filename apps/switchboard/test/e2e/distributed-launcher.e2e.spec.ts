import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PrivateNatsServer, closedLoopbackPort } from '@switchboard/bus/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/processes.js';

const LAUNCHER = join(REPO_ROOT, 'apps/switchboard/dist/src/distributed.js');

interface Launch {
  child: ChildProcess;
  output: () => string;
  exit: Promise<number | null>;
}

/** `npm run start:distributed` without the build: the launcher on this Node, its output kept. */
function launch(env: Record<string, string>): Launch {
  const child = spawn(process.execPath, [LAUNCHER], { cwd: REPO_ROOT, env: { PATH: process.env['PATH'] ?? '', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output, exit: new Promise((resolve) => child.once('close', resolve)) };
}

async function untilPrinted(run: Launch, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  while (!pattern.test(run.output())) {
    if (run.child.exitCode !== null || Date.now() > giveUpAt) throw new Error(`${pattern} not printed:\n${run.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The launcher's service processes: pid by name (`…/services/<name>/dist/src/main.js`). */
function servicesOf(launcherPid: number): Map<string, number> {
  const lines = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(launcherPid)], { encoding: 'utf8' }).trim().split('\n');
  return new Map(lines.flatMap((line) => {
    const match = line.trim().match(/^(\d+) .*services\/(\w+)\/dist\/src\/main\.js$/);
    return match ? [[match[2]!, Number(match[1])] as const] : [];
  }));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the distributed launcher (npm run start:distributed)', () => {
  let nats: PrivateNatsServer;
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    nats = await PrivateNatsServer.start({ jetstream: true });
    dataDir = mkdtempSync(join(tmpdir(), 'sb-launcher-'));
    env = { SWITCHBOARD_NATS_URL: nats.url, SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_PORT: String(await closedLoopbackPort()) };
  });
  afterAll(async () => {
    await nats?.stop({ removeStore: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the five services, and SIGTERM stops them all with exit 0', async () => {
    const run = launch(env);
    await untilPrinted(run, /Switchboard \(distributed\) listening on/);
    const services = servicesOf(run.child.pid!);
    expect([...services.keys()].sort()).toEqual(['events', 'gateway', 'messaging', 'quota', 'sessions']);
    expect(run.output()).toMatch(/^quota +\| Switchboard bootstrap account acc_\w+ \(plan enterprise\); API key, shown once: sbk_/m);
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
    expect([...services.values()].filter(alive)).toEqual([]);
  });

  it('when one service dies, says which, stops the others and exits 1', async () => {
    const run = launch(env);
    await untilPrinted(run, /Switchboard \(distributed\) listening on/);
    const services = servicesOf(run.child.pid!);
    process.kill(services.get('sessions')!, 'SIGKILL');
    expect(await run.exit).toBe(1);
    expect(run.output()).toContain('switchboard: sessions exited (SIGKILL); stopping the others');
    expect([...services.values()].filter(alive)).toEqual([]);
  });

  it('refuses in one line a key that is not the one its data dir was made with', async () => {
    const run = launch({ ...env, SWITCHBOARD_SECRET_KEY: randomBytes(32).toString('hex') });
    expect(await run.exit).toBe(1);
    expect(run.output()).toMatch(/^(sessions|events|messaging) +\| \1 service: SWITCHBOARD_SECRET_KEY: .* holds secrets sealed with another key; /m);
  });

  it('checks the variables once, before starting anything', async () => {
    const run = launch({ ...env, SWITCHBOARD_PORT: 'abc' });
    expect(await run.exit).toBe(1);
    expect(run.output()).toBe('switchboard: SWITCHBOARD_PORT: expected a port number (0-65535), got "abc"\n');
  });
});
