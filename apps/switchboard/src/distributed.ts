import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '@switchboard/chat-emulator';
import type { RunningEmulator } from '@switchboard/chat-emulator';
import { exitOnStartFailure, loadConfig, loadOrCreateSecretKey, portVariablesOf, SECRET_KEY_FILE } from '@switchboard/service-kit';
import type { SwitchboardConfig } from '@switchboard/service-kit';

// `npm run start:distributed`: the distributed mode on one machine. The five processes of
// `node services/<name>/dist/src/main.js` run on this process's Node (the project's Node 24, not
// whatever `node` the PATH finds), each output line prefixed with its name. Its own data dir by
// default: a data dir belongs to one secret key, and `./data` is `npm start`'s. When one process
// exits, the others are stopped and the launcher exits 1.

const SERVICES = ['quota', 'sessions', 'messaging', 'events', 'gateway'] as const;
type Service = (typeof SERVICES)[number];
const DEFAULTS = { SWITCHBOARD_DATA_DIR: './data-distributed', SWITCHBOARD_NATS_URL: 'nats://127.0.0.1:4222', SWITCHBOARD_HOST: '127.0.0.1' };
/** A process that does not finish its SIGTERM within this is killed. */
const STOP_GRACE_MS = 15_000;

/** The launcher's defaults under the caller's variables; blank counts as unset, as in `loadConfig`. */
function withDefaults(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  const merged: Record<string, string | undefined> = { ...env };
  for (const [name, value] of Object.entries(DEFAULTS)) if (!env[name]?.trim()) merged[name] = value;
  return merged;
}

/** The processes require `SWITCHBOARD_SECRET_KEY`; unset, one is generated into the data dir once, as `npm start` does. */
function secretKeyOf(config: SwitchboardConfig): string {
  if (config.secretKey) return config.secretKey;
  const file = join(config.dataDir, SECRET_KEY_FILE);
  const created = !existsSync(file);
  const key = loadOrCreateSecretKey(config.dataDir).toString('hex');
  if (created) process.stdout.write(`SWITCHBOARD_SECRET_KEY is unset: generated ${file} (keep it with this data dir)\n`);
  return key;
}

/** Every line of `from` to `to`, prefixed with the process name. */
function prefixLines(from: Readable, to: Writable, name: string): void {
  createInterface({ input: from, crlfDelay: Infinity }).on('line', (line) => to.write(`${name.padEnd(9)} | ${line}\n`));
}

/** Its own process group (detached): a terminal's Ctrl-C reaches the launcher only, which stops each process once. */
function startProcess(name: Service, env: Record<string, string | undefined>): ChildProcess {
  const entry = fileURLToPath(new URL('./main.js', import.meta.resolve(`@switchboard/${name}`)));
  const child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  prefixLines(child.stdout!, process.stdout, name);
  prefixLines(child.stderr!, process.stderr, name);
  return child;
}

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;
const closed = (child: ChildProcess) => new Promise((resolve) => (running(child) ? child.once('close', resolve) : resolve(undefined)));

/** Stops every process (SIGTERM, SIGKILL after the grace or on a second signal), then exits with `code`. */
function supervise(children: Map<Service, ChildProcess>, emulator: RunningEmulator | undefined): void {
  let stopping = false;
  const kill = (signal: NodeJS.Signals) => {
    for (const child of children.values()) if (running(child)) child.kill(signal);
  };
  const stopAll = (code: number) => {
    if (stopping) return kill('SIGKILL');
    stopping = true;
    kill('SIGTERM');
    setTimeout(() => kill('SIGKILL'), STOP_GRACE_MS).unref();
    void Promise.all([...children.values()].map(closed)).then(() => emulator?.stop()).finally(() => process.exit(code));
  };
  for (const [name, child] of children) {
    child.once('close', (code, signal) => {
      if (stopping) return;
      process.stderr.write(`switchboard: ${name} exited (${signal ?? `code ${code}`}); stopping the others\n`);
      stopAll(1);
    });
  }
  process.on('SIGINT', () => stopAll(0));
  process.on('SIGTERM', () => stopAll(0));
  // Whatever ends this process, it leaves no service behind in its own process group.
  process.on('exit', () => kill('SIGKILL'));
}

/** Prints where to reach Switchboard once the gateway's /readyz says every service is up. */
async function announceWhenReady(config: SwitchboardConfig, children: Map<Service, ChildProcess>): Promise<void> {
  const host = !config.host || config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`;
  while ([...children.values()].every(running)) {
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) {
      process.stdout.write(`Switchboard (distributed) listening on ${url} (docs: ${url}/docs)\n`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const env = withDefaults(process.env);
let config: SwitchboardConfig;
let emulator: RunningEmulator | undefined;
try {
  config = loadConfig(env);
  env['SWITCHBOARD_SECRET_KEY'] = secretKeyOf(config);
  if (config.chatNetwork === 'emulator' && !config.emulatorUrl) {
    // As in `npm start`: an emulated network in this process, its state in the data dir.
    emulator = await startEmulator({ port: config.emulatorPort, controlPort: config.emulatorControlPort, addressing: config.emulatorAddressing, dataDir: join(config.dataDir, 'emulator') });
    env['SWITCHBOARD_EMULATOR_URL'] = emulator.wsUrl;
    process.stdout.write(`Chat network emulator: ${emulator.wsUrl}, control API ${emulator.controlUrl}\n`);
  }
} catch (error) {
  exitOnStartFailure('switchboard', error, portVariablesOf(env));
}
// One metrics port per process: SWITCHBOARD_METRICS_PORT=P gives quota P, sessions P+1, messaging P+2, events P+3.
const metricsPort = (index: number) => (config.metricsPort === undefined ? {} : { SWITCHBOARD_METRICS_PORT: String(config.metricsPort + index) });
const children = new Map(SERVICES.map((name, index) => [name, startProcess(name, { ...env, ...(name === 'gateway' ? {} : metricsPort(index)) })] as const));
supervise(children, emulator);
await announceWhenReady(config, children);
