import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { PrivateNatsServer, closedLoopbackPort } from '@switchboard/bus/testing';
import { createTestDatabase } from '@switchboard/eventstore/testing';
import { EmulatorControlClient } from '@switchboard/chat-emulator';
import type { Addressing } from '@switchboard/chat-emulator';
import { NodeProcess, REPO_ROOT, waitUntilReady } from './processes.js';

export type Mode = 'embedded' | 'distributed';

/**
 * Both modes in both addressings (`lid`: the network as it is now, contacts named by their LID;
 * `pn`: as it was, by their number), for `describe.each` in the specs whose outcome hangs on how
 * the network names a contact (sends and their receipts, inbound messages, polls, retry receipts).
 * The other specs run in the emulator's default (`lid`); `SWITCHBOARD_EMULATOR_ADDRESSING=pn` in
 * the test's environment runs any of them in `pn`.
 */
export const MODES_AND_ADDRESSINGS: ReadonlyArray<readonly [Mode, Addressing]> = [
  ['embedded', 'lid'], ['distributed', 'lid'], ['embedded', 'pn'], ['distributed', 'pn'],
];

/** A running Switchboard reached only as its users reach it: HTTP, plus the emulated network. */
export interface SwitchboardUnderTest {
  readonly mode: Mode;
  readonly url: string;
  /** Key of the bootstrap account (plan from `plan`). */
  readonly apiKey: string;
  /** `SWITCHBOARD_ADMIN_API_KEY`. */
  readonly adminKey: string;
  readonly emulator: EmulatorControlClient;
  /** `SWITCHBOARD_DATA_DIR` of every process (the operator's view of what is on disk). */
  readonly dataDir: string;
  /** Distributed mode: `SWITCHBOARD_NATS_URL` of every process (the private server), for the CLI. */
  readonly natsUrl?: string;
  /** Process id of `name` (`switchboard` in embedded mode, a service or the private `nats-server` in distributed mode), while it runs. */
  pidOf(name: 'switchboard' | ServiceProcess | 'nats-server'): number | undefined;
  /**
   * SIGKILL the process that holds the chat connections, then start it again (with `env` over its
   * variables, for this start only); resolves once `/readyz` answers 200.
   */
  crashAndRestartSessions(env?: Record<string, string>): Promise<void>;
  /** Distributed mode only: crash or freeze one process, stop and start the bus. */
  readonly cluster?: ClusterControls;
  close(): Promise<void>;
}

/** What a crash test does to the processes of the distributed mode and to its private NATS. */
export interface ClusterControls {
  /** SIGKILL, no clean-up of any kind; resolves once the process is gone. */
  kill(name: ServiceProcess): Promise<void>;
  /** Starts a killed process again on the same data; `untilReady` waits for it. */
  start(name: ServiceProcess): void;
  /** SIGSTOP / SIGCONT: the process keeps its sockets but does nothing meanwhile. */
  signal(name: ServiceProcess, signal: 'SIGSTOP' | 'SIGCONT'): void;
  /** Stops the private nats-server (never a shared one); its JetStream store is kept. */
  stopNats(): Promise<void>;
  /** Starts it again on the same port; the processes reconnect by themselves. */
  startNats(): Promise<void>;
  /** Resolves once the gateway's /readyz answers 200, that is every service is ready. */
  untilReady(): Promise<void>;
  /** The sessions replicas (`sessionsReplicas`), each its own process with its own data dir. */
  readonly sessionsReplicas: readonly SessionsReplica[];
  /** Distributed mode on PostgreSQL: `SWITCHBOARD_EVENTSTORE_URL` of every process. */
  readonly eventStoreUrl?: string;
}

/** One sessions process of several sharing the sessions. */
export interface SessionsReplica {
  readonly index: number;
  readonly pid: number | undefined;
  /** SIGKILL: its sessions must move to the survivors. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit: it hands its sessions over first. */
  stop(): Promise<void>;
  /** Starts it; resolves once it is up (its metrics endpoint answers: it took its sessions and listens). */
  start(): Promise<void>;
  /** Its `/metrics` (each replica has its own SWITCHBOARD_METRICS_PORT). */
  readonly metricsUrl: string;
}

/** The processes of the distributed mode that `processEnv` can address. */
export type ServiceProcess = 'quota' | 'sessions' | 'messaging' | 'events' | 'gateway';

export interface HarnessOptions {
  plan?: 'free' | 'basic' | 'premium' | 'enterprise';
  env?: Record<string, string>;
  /** Distributed mode: extra variables for one process only (its own SWITCHBOARD_METRICS_PORT). */
  processEnv?: Partial<Record<ServiceProcess, Record<string, string>>>;
  /** Every chunk any process prints, named by process (the whole run, not only the last 20 kB). */
  onOutput?: (process: string, chunk: string) => void;
  /** A chat network emulator already running in its own process (benchmarks); else one is started. */
  emulator?: EmulatorProcess;
  /** Distributed mode: how many sessions processes share the sessions (default 1). */
  sessionsReplicas?: number;
  /**
   * Distributed mode: the event store of every service. `postgres` (default): a database of the
   * run's own on the machine's PostgreSQL, dropped at close; `sqlite`: a file per service in the
   * shared data dir (one host only, one sessions replica).
   */
  eventStore?: 'postgres' | 'sqlite';
  /**
   * How the emulated network names contacts (`SWITCHBOARD_EMULATOR_ADDRESSING`): `lid` (the network
   * as it is now) or `pn` (as it was). Unset: the emulator's default, or the variable in the test's
   * own environment (`SWITCHBOARD_EMULATOR_ADDRESSING=pn npx vitest run …` runs a spec in `pn`).
   * Not used with `emulator` (that process was started with its own).
   */
  addressing?: Addressing;
}

/** The emulator as `npm run emulator` runs it: its own process, reached over loopback. */
export interface EmulatorProcess {
  wsUrl: string;
  controlUrl: string;
  /** Its process id while it runs (benchmarks read its CPU). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
}

const entry = (path: string) => join(REPO_ROOT, path);

function baseEnv(dataDir: string, options: HarnessOptions) {
  const apiKey = `sbk_${randomBytes(32).toString('base64url')}`;
  const adminKey = `sbk_${randomBytes(32).toString('base64url')}`;
  const env: Record<string, string> = {
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_CHAT_NETWORK: 'emulator',
    SWITCHBOARD_BOOTSTRAP_API_KEY: apiKey,
    SWITCHBOARD_ADMIN_API_KEY: adminKey,
    SWITCHBOARD_DEFAULT_PLAN: options.plan ?? 'enterprise',
    SWITCHBOARD_SECRET_KEY: randomBytes(32).toString('hex'),
    SWITCHBOARD_HOST: '127.0.0.1',
    SWITCHBOARD_MEDIA_ALLOW_LOOPBACK: 'true',
    // Webhook receivers of the tests listen on 127.0.0.1.
    SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK: 'true',
    // Send pacing off: the suites send bursts to fresh contacts and time their answers; pacing has
    // its own end-to-end test (pacing.e2e.spec.ts), which sets these.
    SWITCHBOARD_PACING_GAP_MS: '0',
    SWITCHBOARD_PACING_NEW_CONTACT_GAP_MS: '0',
    LOG_LEVEL: 'warn',
    ...(options.addressing ? { SWITCHBOARD_EMULATOR_ADDRESSING: options.addressing } : {}),
    ...options.env,
  };
  return { env, apiKey, adminKey };
}

/** `addressing`: the emulator's `SWITCHBOARD_EMULATOR_ADDRESSING` (unset: as the test's environment says, else `lid`). */
export async function startEmulatorProcess(dataDir?: string, addressing?: Addressing): Promise<EmulatorProcess> {
  // Port 0: the emulator binds a free port itself and prints it. A port picked here and bound
  // there could be taken in between by another test process (EADDRINUSE seen in a CI run).
  const emulator = new NodeProcess('chat-emulator', entry('tools/chat-emulator/dist/src/main.js'), {
    SWITCHBOARD_EMULATOR_CONTROL_PORT: '0', ...(dataDir ? { SWITCHBOARD_EMULATOR_DATA_DIR: dataDir } : {}),
    ...(addressing ? { SWITCHBOARD_EMULATOR_ADDRESSING: addressing } : {}),
  });
  emulator.start();
  const [, wsUrl] = await emulator.waitForOutput(/WebSocket URL:\s+(\S+)/);
  const [, controlUrl] = await emulator.waitForOutput(/control URL:\s+(\S+)/);
  return {
    wsUrl: wsUrl!, controlUrl: controlUrl!, stop: () => emulator.stop(),
    get pid() {
      return emulator.pid;
    },
  };
}

/** `npm start` as a child process: everything in one process, with its in-process emulator. */
export async function startEmbedded(options: HarnessOptions = {}): Promise<SwitchboardUnderTest> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-embedded-'));
  const { env, apiKey, adminKey } = baseEnv(dataDir, options);
  const port = await closedLoopbackPort();
  const controlPort = await closedLoopbackPort();
  const external: Record<string, string> = options.emulator ? { SWITCHBOARD_EMULATOR_URL: options.emulator.wsUrl } : {};
  const app = new NodeProcess('switchboard', entry('apps/switchboard/dist/src/embedded.js'), {
    ...env, ...external, SWITCHBOARD_PORT: String(port), SWITCHBOARD_EMULATOR_CONTROL_PORT: String(controlPort),
  }, options.onOutput);
  const url = `http://127.0.0.1:${port}`;
  const start = async (restartEnv?: Record<string, string>) => {
    app.start(restartEnv);
    await waitUntilReady(`${url}/readyz`, [app]);
  };
  const close = async () => {
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  await stopIfFailing(start, close);
  return {
    mode: 'embedded', url, apiKey, adminKey, dataDir,
    pidOf: (name) => (name === 'switchboard' ? app.pid : undefined),
    emulator: new EmulatorControlClient(options.emulator?.controlUrl ?? `http://127.0.0.1:${controlPort}`),
    crashAndRestartSessions: async (restartEnv) => {
      await app.kill();
      await start(restartEnv);
    },
    close,
  };
}

/** Runs `start`; if it fails, nothing it started outlives the failed test (no leaked processes). */
async function stopIfFailing(start: () => Promise<void>, close: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}

/** The distributed mode: an emulator process, a private NATS, the four services and the gateway. */
export async function startDistributed(options: HarnessOptions = {}): Promise<SwitchboardUnderTest> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-distributed-'));
  const { env, apiKey, adminKey } = baseEnv(dataDir, options);
  // JetStream: the distributed mode keeps media blobs, chat credentials and the replica directory in it.
  const nats = await PrivateNatsServer.start({ jetstream: true });
  const database = (options.eventStore ?? 'postgres') === 'postgres' ? await createTestDatabase('sb_e2e') : undefined;
  const emulator = options.emulator ?? (await startEmulatorProcess(join(dataDir, 'emulator'), options.addressing));
  const port = await closedLoopbackPort();
  const serviceEnv = {
    ...env,
    SWITCHBOARD_NATS_URL: nats.url,
    SWITCHBOARD_EMULATOR_URL: emulator.wsUrl,
    SWITCHBOARD_PORT: String(port),
    ...(database ? { SWITCHBOARD_EVENTSTORE_URL: database.url } : {}),
  };
  const service = (name: ServiceProcess, extra: Record<string, string> = {}) =>
    new NodeProcess(name, entry(`services/${name}/dist/src/main.js`), { ...serviceEnv, ...extra, ...options.processEnv?.[name] }, options.onOutput);
  // Replicas after the first keep their files (read models, outbox) in a data dir of their own, as pods do.
  const replicaCount = options.sessionsReplicas ?? 1;
  const metricsPorts = await Promise.all(Array.from({ length: replicaCount }, () => closedLoopbackPort()));
  const sessionsProcesses = metricsPorts.map((metricsPort, i) =>
    service('sessions', {
      SWITCHBOARD_METRICS_PORT: String(metricsPort),
      ...(i === 0 ? {} : { SWITCHBOARD_DATA_DIR: join(dataDir, `sessions-replica-${i + 1}`) }),
    }),
  );
  const processes = [service('quota'), ...sessionsProcesses, service('messaging'), service('events'), service('gateway')];
  const sessions = sessionsProcesses[0]!;
  for (const p of processes) p.start();
  const url = `http://127.0.0.1:${port}`;
  const all = processes;
  const close = async () => {
    for (const p of [...processes].reverse()) await p.stop();
    if (!options.emulator) await emulator.stop();
    await nats.stop({ removeStore: true });
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
  await stopIfFailing(() => waitUntilReady(`${url}/readyz`, all), close);
  const byName = (name: ServiceProcess) => processes.find((p) => p.name === name)!;
  const cluster: ClusterControls = {
    kill: (name) => byName(name).kill(),
    start: (name) => byName(name).start(),
    signal: (name, signal) => byName(name).signal(signal),
    stopNats: () => nats.stop(),
    startNats: () => nats.restart(),
    untilReady: () => waitUntilReady(`${url}/readyz`, all),
    sessionsReplicas: sessionsProcesses.map((p, index) => ({
      index,
      get pid() {
        return p.pid;
      },
      kill: () => p.kill(),
      stop: () => p.stop(),
      start: async () => {
        p.start();
        await waitUntilReady(`http://127.0.0.1:${metricsPorts[index]}/metrics`, [p]);
      },
      metricsUrl: `http://127.0.0.1:${metricsPorts[index]}/metrics`,
    })),
    ...(database ? { eventStoreUrl: database.url } : {}),
  };
  return {
    mode: 'distributed', url, apiKey, adminKey, dataDir, natsUrl: nats.url,
    pidOf: (name) => (name === 'nats-server' ? nats.pid : processes.find((p) => p.name === name)?.pid),
    emulator: new EmulatorControlClient(emulator.controlUrl),
    crashAndRestartSessions: async (restartEnv) => {
      await sessions.kill();
      sessions.start(restartEnv);
      await waitUntilReady(`${url}/readyz`, all);
    },
    cluster,
    close,
  };
}

export const startSwitchboardUnderTest = (mode: Mode, options?: HarnessOptions) =>
  mode === 'embedded' ? startEmbedded(options) : startDistributed(options);
