import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { SQLInputValue } from 'node:sqlite';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { ulid } from 'ulid';
import { ChatNetworkGate, EmulatorControlClient, startEmulator } from '@switchboard/chat-emulator';
import type { PairingSchedule, RunningEmulator } from '@switchboard/chat-emulator';
import { InProcessBus } from '@switchboard/bus';
import type { ReplyOf, RequestInput, SubjectContract } from '@switchboard/contracts';
import { SessionsSubjects } from '@switchboard/contracts';
import { loadConfig } from '@switchboard/service-kit';
import type { RunningService } from '@switchboard/service-kit';
import { createLogger } from '@switchboard/telemetry';
import { startSessionsService } from '../src/service.js';
import type { ChatNetworkOverrides } from '../src/chat-network.js';
import { Quota } from './quota.js';

export interface HarnessOptions {
  pairing?: Partial<PairingSchedule>;
  /** Given the running emulator, so a test can point the service elsewhere with its trust. */
  chatNetwork?: (emulator: RunningEmulator) => Omit<ChatNetworkOverrides, 'onDriver'>;
  firstQrTimeoutMs?: number;
  /** Every log line of the service, parsed (default: silent). */
  onLog?: (line: Record<string, unknown>) => void;
  /** More `SWITCHBOARD_*` variables for the service (e.g. SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY). */
  env?: Record<string, string>;
  /** The service reaches the emulator through a gate that can hold its chat connections back (`harness.gate`). */
  gated?: boolean;
}

/**
 * The sessions service as the gateway sees it: real Baileys against the in-process emulator,
 * real SQLite in a temp dir, the in-process bus, and the real quota service for accounts and slots.
 * `restart()` simulates a crash: the connections close without logging out.
 */
export class Harness {
  readonly control: EmulatorControlClient;
  /** Every pairing code the network issued, per session, in order. */
  readonly issuedQr = new Map<string, string[]>();
  service: RunningService | undefined;

  private constructor(
    readonly bus: InProcessBus,
    readonly emulator: RunningEmulator,
    readonly quota: Quota,
    readonly dataDir: string,
    private readonly options: HarnessOptions,
    /** In front of the emulator when the harness was started `gated`. */
    readonly gate?: ChatNetworkGate,
  ) {
    this.control = new EmulatorControlClient(emulator.controlUrl);
  }

  static async start(options: HarnessOptions = {}): Promise<Harness> {
    const emulator = await startEmulator({ port: 0, controlPort: 0, ...(options.pairing ? { pairing: options.pairing } : {}) });
    const bus = new InProcessBus();
    const dataDir = mkdtempSync(join(tmpdir(), 'sb-sessions-'));
    const gate = options.gated ? await ChatNetworkGate.start(emulator.wsUrl) : undefined;
    const harness = new Harness(bus, emulator, await Quota.start(bus, dataDir), dataDir, options, gate);
    await harness.startService();
    return harness;
  }

  async startService(): Promise<RunningService> {
    const config = loadConfig({
      SWITCHBOARD_DATA_DIR: this.dataDir,
      SWITCHBOARD_CHAT_NETWORK: 'emulator',
      SWITCHBOARD_EMULATOR_URL: this.gate?.wsUrl ?? this.emulator.wsUrl,
      ...this.options.env,
    });
    const onDriver: ChatNetworkOverrides['onDriver'] = (sessionId, driver) =>
      driver.on('qr', ({ code }) => this.issuedQr.set(sessionId, [...(this.issuedQr.get(sessionId) ?? []), code]));
    const { onLog } = this.options;
    const destination = onLog ? { write: (line: string) => onLog(JSON.parse(line) as Record<string, unknown>) } : undefined;
    const logger = createLogger({ service: 'sessions', level: onLog ? 'info' : 'silent', ...(destination ? { destination } : {}) });
    const chatNetwork = { ...this.options.chatNetwork?.(this.emulator), onDriver };
    const firstQr = this.options.firstQrTimeoutMs === undefined ? {} : { firstQrTimeoutMs: this.options.firstQrTimeoutMs };
    this.service = await startSessionsService({ bus: this.bus, config, logger, chatNetwork, ...firstQr });
    return this.service;
  }

  /** Closes the service the way a crash would leave the network: no logout, credentials kept. */
  async restart(): Promise<RunningService> {
    await this.service?.close();
    return this.startService();
  }

  async call<C extends SubjectContract>(contract: C, data: RequestInput<C>): Promise<ReplyOf<C>> {
    const reply = await this.bus.request(contract.subject, data, { timeoutMs: 60_000 });
    return contract.reply.parse(reply.data) as ReplyOf<C>;
  }

  /** Creates a session and lets phone `phone` scan its QR image; resolves once it is connected. */
  async connectedSession(accountId: string, phone: string, name?: string): Promise<string> {
    const { sessionId, qrCode } = await this.call(SessionsSubjects.create, { accountId, ...(name ? { name } : {}) });
    await this.control.scan(qrCode, phone);
    await this.statusBecomes(accountId, sessionId, 'connected');
    return sessionId;
  }

  async statusBecomes(accountId: string, sessionId: string, status: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const view = await this.call(SessionsSubjects.get, { accountId, sessionId }).catch(() => undefined);
      if (view?.status === status) return;
      if (Date.now() > deadline) throw new Error(`session ${sessionId} is ${view?.status ?? 'gone'}, not ${status}, after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** One row of a SQLite file of the sessions service (`sessions/<file>` in the data dir), read as an operator would, read-only. */
  readRow<T>(file: string, sql: string, ...params: SQLInputValue[]): T {
    const db = new DatabaseSync(join(this.dataDir, 'sessions', file), { readOnly: true });
    try {
      return db.prepare(sql).get(...params) as T;
    } finally {
      db.close();
    }
  }

  async close(): Promise<void> {
    await this.service?.close();
    await this.quota.close();
    await this.gate?.close();
    await this.emulator.stop();
    await this.bus.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

// jsqr is a UMD bundle whose CommonJS export IS the function; its typings declare an ES default export.
type JsQr = typeof jsQRModule.default;
const jsQR: JsQr = typeof jsQRModule === 'function' ? (jsQRModule as JsQr) : jsQRModule.default;

export const newAccountId = (): string => `acc_${ulid()}`;

let phones = 0;
/** A phone number no other test of this process uses. */
export function uniquePhone(): string {
  phones += 1;
  return `1555${String(process.pid % 10_000).padStart(4, '0')}${String(phones).padStart(3, '0')}`;
}

/** Reads a `data:image/png;base64,…` QR code like a phone camera would. */
export function decodeQrDataUrl(dataUrl: string): string | undefined {
  const png = PNG.sync.read(Buffer.from(dataUrl.replace(/^data:image\/png;base64,/, ''), 'base64'));
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data;
}

export async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
