import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ulid } from 'ulid';
import { EmulatorControlClient, startEmulator } from '@switchboard/chat-emulator';
import type { RunningEmulator } from '@switchboard/chat-emulator';
import { NatsBus } from '@switchboard/bus';
import { PrivateNatsServer, closedLoopbackPort } from '@switchboard/bus/testing';
import { QuotaSubjects, ReadySubjects, SessionsSubjects, messageStream } from '@switchboard/contracts';
import { SqliteEventStore } from '@switchboard/eventstore';
import type { RecordedEvent } from '@switchboard/eventstore';
import type { Plan, ReplyOf, RequestInput, SubjectContract } from '@switchboard/contracts';
import { loadConfig } from '@switchboard/service-kit';
import { createLogger } from '@switchboard/telemetry';
import { startMessagingService } from '../../src/service.js';
import type { RunningMessagingService, StartMessagingServiceOptions } from '../../src/service.js';

const root = resolve(import.meta.dirname, '../..');
const workspace = resolve(root, '../..');

const SERVICES = ['quota', 'sessions', 'messaging', 'gateway'] as const;

/**
 * Builds the processes the cluster runs (nx caches a fresh build). `nx run …:test` builds them
 * first anyway; a bare `vitest run` gets the same guarantee here.
 */
export function buildServices(): void {
  const projects = SERVICES.flatMap((name) => ['-p', `@switchboard/${name}`]);
  execFileSync(join(workspace, 'node_modules/.bin/nx'), ['run-many', '-t', 'build', ...projects, '--output-style=static'], { cwd: workspace, stdio: 'pipe' });
}

export interface ClusterOptions {
  sendDeadlineMs?: number;
  /** Extra options of the in-process messaging service. */
  messaging?: Partial<StartMessagingServiceOptions>;
  /** Start messaging as its own process (`node dist/src/main.js`) instead of in this one. */
  messagingProcess?: boolean;
  /** Also run the gateway process, HTTP on `gatewayUrl`. */
  gateway?: boolean;
}

/**
 * The distributed mode on one machine: a private NATS with JetStream, the emulator, the real
 * quota and sessions services as their own processes, and messaging in-process (or as a process).
 * Everything on loopback. Tests speak to services over the bus, as the gateway does.
 */
export class Cluster {
  readonly control: EmulatorControlClient;
  readonly dataDir = mkdtempSync(join(tmpdir(), 'sb-messaging-'));
  private readonly secretKey = randomBytes(32).toString('hex');
  private readonly children = new Map<string, ChildProcess>();
  messaging: RunningMessagingService | undefined;
  gatewayPort = 0;

  private constructor(
    readonly nats: PrivateNatsServer,
    readonly emulator: RunningEmulator,
    readonly bus: NatsBus,
    readonly options: ClusterOptions,
  ) {
    this.control = new EmulatorControlClient(emulator.controlUrl);
  }

  static async start(options: ClusterOptions = {}): Promise<Cluster> {
    const nats = await PrivateNatsServer.start({ jetstream: true });
    const emulator = await startEmulator({ port: 0, controlPort: 0 });
    const bus = await NatsBus.connect({ servers: nats.url, name: 'messaging-test' });
    const cluster = new Cluster(nats, emulator, bus, options);
    cluster.spawnService('quota');
    cluster.spawnService('sessions');
    await cluster.startMessaging();
    await cluster.untilReady();
    if (options.gateway) await cluster.startGateway();
    return cluster;
  }

  get env(): Record<string, string> {
    return {
      PATH: process.env['PATH'] ?? '',
      SWITCHBOARD_NATS_URL: this.nats.url,
      SWITCHBOARD_DATA_DIR: this.dataDir,
      SWITCHBOARD_CHAT_NETWORK: 'emulator',
      SWITCHBOARD_EMULATOR_URL: this.emulator.wsUrl,
      SWITCHBOARD_SECRET_KEY: this.secretKey,
      SWITCHBOARD_SEND_DEADLINE_MS: String(this.options.sendDeadlineMs ?? 10_000),
      SWITCHBOARD_MEDIA_ALLOW_LOOPBACK: 'true',
      // Send pacing off: these tests send bursts to many contacts and time them (pacing has its own tests in sessions).
      SWITCHBOARD_PACING_GAP_MS: '0',
      SWITCHBOARD_PACING_NEW_CONTACT_GAP_MS: '0',
    };
  }

  get gatewayUrl(): string {
    return `http://127.0.0.1:${this.gatewayPort}`;
  }

  private async startGateway(): Promise<void> {
    this.gatewayPort = await closedLoopbackPort();
    this.spawnService('gateway', { SWITCHBOARD_PORT: String(this.gatewayPort), SWITCHBOARD_HOST: '127.0.0.1' });
    await eventually(async () => ((await fetch(`${this.gatewayUrl}/healthz`).catch(() => undefined))?.ok ? true : undefined), 60_000);
  }

  spawnService(name: 'quota' | 'sessions' | 'messaging' | 'gateway', extraEnv: Record<string, string> = {}): ChildProcess {
    const env = { ...this.env, ...extraEnv };
    const child = spawn(process.execPath, [join(workspace, 'services', name, 'dist/src/main.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
    this.children.set(name, child);
    return child;
  }

  /** SIGSTOP / SIGCONT: freezes a process (its sockets stay open), as a long GC pause or a stalled host would. */
  signal(name: string, signal: 'SIGSTOP' | 'SIGCONT'): void {
    this.children.get(name)?.kill(signal);
  }

  /** SIGKILL: no shutdown code runs, exactly like a crash. */
  async kill(name: string): Promise<void> {
    const child = this.children.get(name);
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
    child.kill('SIGKILL');
    await exited;
  }

  async startMessaging(): Promise<void> {
    if (this.options.messagingProcess) {
      this.spawnService('messaging');
      return;
    }
    const config = loadConfig(this.env);
    const logger = createLogger({ service: 'messaging', level: 'silent' });
    this.messaging = await startMessagingService({ bus: this.bus, config, logger, ...this.options.messaging });
  }

  async untilReady(): Promise<void> {
    const ready = async (contract: SubjectContract) => (await this.call(contract, {}, 2_000).catch(() => undefined)) as { ready?: boolean } | undefined;
    await eventually(async () => ((await ready(ReadySubjects.sessions))?.ready ? true : undefined), 60_000);
    await eventually(async () => ((await ready(ReadySubjects.messaging))?.ready ? true : undefined), 60_000);
    // Quota answers no ready subject yet: its first listing tells it is up.
    await eventually(() => this.call(QuotaSubjects.accounts.list, { limit: 1, offset: 0 }, 2_000).catch(() => undefined), 60_000);
  }

  async call<C extends SubjectContract>(contract: C, data: RequestInput<C>, timeoutMs = 60_000): Promise<ReplyOf<C>> {
    const reply = await this.bus.request(contract.subject, data, { timeoutMs });
    return contract.reply.parse(reply.data) as ReplyOf<C>;
  }

  async account(plan: Plan = 'enterprise'): Promise<string> {
    return (await this.call(QuotaSubjects.accounts.create, { plan })).accountId;
  }

  /** A session of `accountId` linked by phone `phone` (QR scanned through the emulator). */
  async connectedSession(accountId: string, phone: string): Promise<string> {
    const { sessionId, qrCode } = await this.call(SessionsSubjects.create, { accountId });
    await this.control.scan(qrCode, phone);
    await eventually(async () => ((await this.call(SessionsSubjects.get, { accountId, sessionId }).catch(() => undefined))?.status === 'connected' ? true : undefined));
    return sessionId;
  }

  /** A message's stored facts, read from messaging's own SQLite file as an auditor would. */
  async messageStream(messageId: string): Promise<RecordedEvent[]> {
    const store = new SqliteEventStore(join(this.dataDir, 'messaging', 'events.sqlite'));
    try {
      return await store.readStream(messageStream(messageId));
    } finally {
      await store.close();
    }
  }

  async close(): Promise<void> {
    await this.messaging?.close();
    for (const name of this.children.keys()) await this.kill(name);
    await this.bus.close();
    await this.emulator.stop();
    await this.nats.stop({ removeStore: true });
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

let phones = 0;
/** A phone number no other test of this process uses. */
export function uniquePhone(): string {
  phones += 1;
  return `1666${String(process.pid % 10_000).padStart(4, '0')}${String(phones).padStart(3, '0')}`;
}

export const newMessageId = (): string => `msg_${ulid()}`;

export async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
