/**
 * `npm run bench:clone -w @switchboard/app` (after `npm run build`; not part of `npm run bench`,
 * since it clones and installs): issue 12's measure of the README. It clones BENCH_CLONE_SOURCE
 * (default: this repository, its committed HEAD) into a temporary directory and follows the
 * clone's own README in a reader's terminal (the machine's PATH, none of npm's variables):
 * `npm ci`, then `SWITCHBOARD_CHAT_NETWORK=emulator npm start`, then the emulator steps pasted
 * with the key that start printed. Ports are private ones, not 8080/8090, and the build cache is
 * the clone's own, as on a new machine (Nx otherwise shares it between checkouts). Prints the wall time
 * from `git clone` to the first message the contact received, the cold `npm start` (build and
 * start until /readyz answers 200), and the lines `npm ci` printed.
 * BENCH_NPM_OFFLINE=1: `npm ci` from the npm cache only (no registry traffic).
 * BENCH_KEEP_CLONE=1: leave the clone in place.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closedLoopbackPort } from '@switchboard/bus/testing';
import { REPO_ROOT } from '../test/support/processes.js';
import { pasted, shellBlocks, ShellRun, terminalEnv } from '../test/support/readme-blocks.js';

const SOURCE = process.env['BENCH_CLONE_SOURCE'] ?? REPO_ROOT;
const OFFLINE = process.env['BENCH_NPM_OFFLINE'] === '1';

/** Runs `command` to its end; resolves with what it printed, fails on a non-zero exit. */
function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`))));
  });
}

/** The clone's README block that starts with `start`. */
function readmeBlock(clone: string, start: string): string {
  const found = shellBlocks(readFileSync(join(clone, 'README.md'), 'utf8')).find((block) => block.code.startsWith(start));
  if (!found) throw new Error(`the clone's README has no \`\`\`sh block starting with ${JSON.stringify(start)}`);
  return found.code;
}

const seconds = (ms: number) => Number((ms / 1000).toFixed(1));

const parent = mkdtempSync(join(tmpdir(), 'sb-clone-'));
const clone = join(parent, 'switchboard');
const port = await closedLoopbackPort();
const controlPort = await closedLoopbackPort();
const env = terminalEnv({
  SWITCHBOARD_PORT: String(port),
  SWITCHBOARD_EMULATOR_CONTROL_PORT: String(controlPort),
  // Nx shares its build cache between the checkouts of one repository (~/.nx/<workspace id>): a
  // clone on this machine would replay this checkout's builds. A new machine has no cache.
  NX_CACHE_DIRECTORY: join(clone, '.nx', 'cache'),
  ...(OFFLINE ? { npm_config_offline: 'true' } : {}),
});
const replacements: [string, string][] = [['localhost:8080', `127.0.0.1:${port}`], ['localhost:8090', `127.0.0.1:${controlPort}`]];
let server: ShellRun | undefined;
try {
  const t0 = Date.now();
  await run('git', ['clone', '--quiet', SOURCE, clone], parent, env);
  const cloned = Date.now();
  const npmCiOutput = await run('npm', ['ci'], clone, env);
  const installed = Date.now();
  server = new ShellRun(pasted(readmeBlock(clone, 'SWITCHBOARD_CHAT_NETWORK=emulator npm start'), replacements), { cwd: clone, env });
  await server.untilOk(`http://127.0.0.1:${port}/readyz`, 600_000);
  const ready = Date.now();
  const key = (await server.untilPrinted(/API key \(shown once\):\s+(sbk_\S+)/, 5_000))[1]!;
  const steps = new ShellRun(pasted(readmeBlock(clone, 'KEY=sbk_…'), [...replacements, ['KEY=sbk_…', `KEY=${key}`]]), { cwd: parent, env });
  const code = await steps.finished(120_000);
  const received = (await fetch(`http://127.0.0.1:${controlPort}/contacts/15552223333/messages`).then((r) => r.json())) as { text?: string }[];
  if (code !== 0 || !received.some((message) => message.text === 'hello')) throw new Error(`the README's emulator steps did not deliver "hello" (exit ${code}):\n${steps.log()}`);
  const delivered = Date.now();
  const lines = npmCiOutput.split('\n').length - (npmCiOutput.endsWith('\n') ? 1 : 0);
  console.table([{
    cloneToFirstMessageS: seconds(delivered - t0),
    gitCloneS: seconds(cloned - t0),
    npmCiS: seconds(installed - cloned),
    npmCiLines: lines,
    coldNpmStartS: seconds(ready - installed),
    emulatorStepsS: seconds(delivered - ready),
  }]);
  console.log(`npm ci printed${OFFLINE ? ' (from the npm cache only)' : ''}:\n${npmCiOutput}`);
  // The build's summary: a cold start builds every project (no cache hit in a fresh clone).
  console.log(server.log().split('\n').filter((line) => /Successfully ran|Cache:|Run duration/.test(line)).join('\n'));
} finally {
  await server?.stop();
  if (process.env['BENCH_KEEP_CLONE'] === '1') console.log(`clone kept in ${clone}`);
  else rmSync(parent, { recursive: true, force: true });
}
