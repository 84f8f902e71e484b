import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PrivateNatsServer, closedLoopbackPort } from '@switchboard/bus/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatorProcess } from '../support/harness.js';
import { REPO_ROOT } from '../support/processes.js';
import { pasted, shellBlocks, ShellRun, terminalEnv } from '../support/readme-blocks.js';
import type { ShellBlock } from '../support/readme-blocks.js';

// The README's commands, pasted as a reader pastes them and run for real: each ```sh block is run
// below or named in NOT_RUN with the reason. What a reader would type differently on this machine
// is replaced, nothing else: the ports (private ones, not 8080/8090), the data dirs (temporary
// ones), the NATS URL (a private server) and the `sbk_…` that the first start printed.

const BLOCKS = shellBlocks(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'));
const used = new Set<ShellBlock>();

/** The block whose first line starts with `start` (and records that this test runs it). */
function block(start: string): ShellBlock {
  const found = BLOCKS.filter((b) => b.code.startsWith(start));
  if (found.length !== 1) throw new Error(`README: expected one \`\`\`sh block starting with ${JSON.stringify(start)}, found ${found.length}`);
  used.add(found[0]!);
  return found[0]!;
}

/** Blocks this test does not run, each with the reason. */
const NOT_RUN: Record<string, string> = {
  'npx switchboard accounts create': 'its ids (acc_01…, key_01…) and [--admin] are placeholders for what earlier lines print; test/cli.spec.ts runs each command',
  'npx switchboard audit verify': 'its stream name is a placeholder; test/audit-cli.spec.ts runs verify on untouched and tampered stores',
  'npx switchboard audit history': 'its ids are placeholders; test/audit-history-cli.spec.ts and test/e2e/audit.e2e.spec.ts run each query',
  'npx switchboard audit export': 'its account id is a placeholder; test/audit-export-cli.spec.ts exports and verifies both formats',
  'curl -OJ': 'its account id is a placeholder; test/e2e/audit.e2e.spec.ts calls the export over HTTP',
  'npx switchboard accounts erase': 'its account id is a placeholder; test/e2e/erasure.e2e.spec.ts erases over HTTP and from the CLI in both modes',
  'npx switchboard projections rebuild': 'it rebuilds the running Switchboard\'s read models; test/projections-cli.spec.ts and test/e2e/rebuild.e2e.spec.ts run it in both modes',
};

const FIRST_START = block('npm ci && npm start');
const EMULATOR_START = block('SWITCHBOARD_CHAT_NETWORK=emulator npm start');
const EMULATOR_STEPS = block('KEY=sbk_…');
const CONTACT_IMAGE = block('curl -s -X POST localhost:8090/contacts/915552223333@lid/messages');
const DISTRIBUTED_START = block('npm run start:distributed');
const DISTRIBUTED_PROCESSES = block('export PATH=$PWD/node_modules/.bin:$PATH');
const SSE = block('curl -N');
const PAIR_BY_CODE = block('CREATED=$(curl -s -X POST localhost:8080/v1/sessions');

/** A 1×1 JPEG, the reader's photo.jpg. */
const PHOTO = Buffer.from('/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=', 'base64');

const hasCommand = (name: string) => {
  try {
    execFileSync('bash', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const missing = ['curl', 'jq'].filter((name) => !hasCommand(name));
if (missing.length > 0) console.warn(`README commands skipped: ${missing.join(', ')} not installed (the README's examples use them; apt-get install ${missing.join(' ')})`);

/** Less noise in a failure's output; the commands print what they print at any level. */
const terminal = (extra: Record<string, string>) => terminalEnv({ LOG_LEVEL: 'warn', ...extra });

describe.skipIf(missing.length > 0)("the README's commands, pasted and run", () => {
  let root: string;
  let port: number;
  let controlPort: number;
  let url: string;
  let nats: PrivateNatsServer;
  let key = '';
  const running: ShellRun[] = [];
  const start = (code: string, cwd: string, env: NodeJS.ProcessEnv) => {
    const run = new ShellRun(code, { cwd, env });
    running.push(run);
    return run;
  };
  const paste = (b: ShellBlock, extra: [string, string][] = []) =>
    pasted(b.code, [
      ['localhost:8080', `127.0.0.1:${port}`],
      ['127.0.0.1:8080', `127.0.0.1:${port}`],
      ['localhost:8090', `127.0.0.1:${controlPort}`],
      ['nats://127.0.0.1:4222', nats.url],
      ['./data-distributed', join(root, 'data-distributed')],
      ['KEY=sbk_…', `KEY=${key}`],
      ...extra,
    ]);
  const embeddedEnv = () => terminal({ SWITCHBOARD_PORT: String(port), SWITCHBOARD_EMULATOR_CONTROL_PORT: String(controlPort), SWITCHBOARD_DATA_DIR: join(root, 'data') });
  const api = (path: string, init: RequestInit = {}) => fetch(`${url}${path}`, { ...init, headers: { authorization: `Bearer ${key}` } });
  const contactReceived = async (phone: string) => (await fetch(`http://127.0.0.1:${controlPort}/contacts/${phone}/messages`).then((r) => r.json())) as { from: string; text?: string }[];

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'sb-readme-'));
    port = await closedLoopbackPort();
    controlPort = await closedLoopbackPort();
    url = `http://127.0.0.1:${port}`;
    nats = await PrivateNatsServer.start({ jetstream: true });
  });
  // Each test stops what it started, also when it fails, so the next one finds its ports free.
  afterEach(async () => {
    for (const run of running.splice(0)) await run.stop();
  });
  afterAll(async () => {
    await nats?.stop({ removeStore: true });
    rmSync(root, { recursive: true, force: true });
  });

  it('npm start (of "npm ci && npm start") builds, listens and prints the first account\'s key once', async () => {
    // npm ci would reinstall the node_modules the tests run from (the clone bench runs it in a
    // fresh clone); npm test is the suite this test is part of.
    expect(FIRST_START.code).toMatch(/^npm ci && npm start\b/m);
    expect(FIRST_START.code).toMatch(/^npm test\b/m);
    const server = start('npm start', REPO_ROOT, embeddedEnv());
    await server.untilOk(`${url}/readyz`, 150_000);
    key = (await server.untilPrinted(/API key \(shown once\):\s+(sbk_\S+)/, 5_000))[1]!;
    await server.stop();
  }, 180_000);

  describe('emulator mode, on the data dir of that first start', () => {
    let server: ShellRun;
    beforeAll(async () => {
      server = new ShellRun(paste(EMULATOR_START), { cwd: REPO_ROOT, env: embeddedEnv() });
      await server.untilOk(`${url}/readyz`, 150_000);
    }, 180_000);
    afterAll(() => server?.stop());

    it('says where the accounts are instead of a new key', () => {
      expect(server.log()).toContain(`Accounts exist in ${join(root, 'data')}`);
    });

    it('the steps pair a phone, wait for "connected", and the contact receives "hello"; the SSE stream shows its status', async () => {
      const sse = start(paste(SSE), root, terminal({ SWITCHBOARD_API_KEY: key }));
      const steps = start(paste(EMULATOR_STEPS), root, terminal({}));
      expect(await steps.finished(60_000), steps.log()).toBe(0);
      expect(steps.log()).toMatch(/^connected$/m);
      expect(steps.log()).toMatch(/"status":"sent"/);
      expect(steps.log()).toMatch(/"text":"hello"/);
      expect(await contactReceived('15552223333')).toEqual([expect.objectContaining({ from: '15550001111', text: 'hello' })]);
      await sse.untilPrinted(/^event: message\.status$/m, 15_000);
    }, 90_000);

    it('pairing by code: the fake phone enters the code the create answered, and the session connects', async () => {
      const steps = start(paste(PAIR_BY_CODE, [['$KEY', key]]), root, terminal({}));
      expect(await steps.finished(60_000), steps.log()).toBe(0);
      expect(steps.log()).toMatch(/"phone":"15550004444"/);
      expect(steps.log()).toMatch(/^connected$/m);
    }, 90_000);

    it("a contact's photo.jpg (the inbound example) arrives in the linked number's history", async () => {
      const cwd = mkdtempSync(join(root, 'photo-'));
      writeFileSync(join(cwd, 'photo.jpg'), PHOTO);
      const contact = start(paste(CONTACT_IMAGE), cwd, terminal({}));
      expect(await contact.finished(30_000), contact.log()).toBe(0);
      for (let attempt = 0; ; attempt++) {
        const history = (await api('/v1/messages?direction=in').then((r) => r.json())) as { data: { messages: { media?: { mediaType: string; caption?: string } }[] } };
        if (history.data.messages.some((m) => m.media?.mediaType === 'image' && m.media.caption === 'hi')) break;
        if (attempt > 100) throw new Error(`no inbound image: ${JSON.stringify(history)}\n${contact.log()}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }, 60_000);
  });

  it('npm run start:distributed starts the five processes on its own data dir, ready, and the emulator steps work against it', async () => {
    const env = terminal({
      SWITCHBOARD_PORT: String(port),
      SWITCHBOARD_EMULATOR_CONTROL_PORT: String(controlPort),
      SWITCHBOARD_DATA_DIR: join(root, 'data-distributed'),
      SWITCHBOARD_NATS_URL: nats.url,
      SWITCHBOARD_CHAT_NETWORK: 'emulator',
    });
    const launcher = start(paste(DISTRIBUTED_START), REPO_ROOT, env);
    await launcher.untilOk(`${url}/readyz`, 150_000);
    await launcher.untilPrinted(/Switchboard \(distributed\) listening on/, 5_000);
    key = (await launcher.untilPrinted(/^quota +\| .*API key, shown once: (sbk_\S+)/m, 5_000))[1]!;
    const steps = start(paste(EMULATOR_STEPS), root, terminal({}));
    expect(await steps.finished(60_000), steps.log()).toBe(0);
    expect(await contactReceived('15552223333')).toEqual([expect.objectContaining({ from: '15550001111', text: 'hello' })]);
    await launcher.stop();
    expect(launcher.log()).not.toMatch(/exited \(/);
  }, 180_000);

  it('the processes one by one, with the data dir and key of the launcher\'s run, become ready', async () => {
    // The session linked above reconnects: to the same emulated network (its state in the data
    // dir), now in a process of its own, never to WhatsApp.
    const emulator = await startEmulatorProcess(join(root, 'data-distributed', 'emulator'));
    try {
      const env = terminal({ SWITCHBOARD_PORT: String(port), SWITCHBOARD_CHAT_NETWORK: 'emulator', SWITCHBOARD_EMULATOR_URL: emulator.wsUrl });
      const processes = start(paste(DISTRIBUTED_PROCESSES), REPO_ROOT, env);
      await processes.untilOk(`${url}/readyz`, 90_000);
      const sessions = (await api('/v1/sessions').then((r) => r.json())) as { data: { sessions: { status: string }[] } };
      expect(sessions.data.sessions.map((session) => session.status)).toEqual(['connected']);
      await processes.stop();
      expect(processes.log()).not.toMatch(/sealed with another key|SWITCHBOARD_SECRET_KEY/);
    } finally {
      await emulator.stop();
    }
  }, 120_000);

  it('every ```sh block of the README is run above or listed with the reason it is not', () => {
    const unaccounted = BLOCKS.filter((b) => !used.has(b) && !Object.keys(NOT_RUN).some((start) => b.code.startsWith(start)));
    expect(unaccounted.map((b) => `README line ${b.line}: ${b.code.split('\n')[0]}`)).toEqual([]);
  });
});
