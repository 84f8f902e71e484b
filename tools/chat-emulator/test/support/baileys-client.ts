import { Agent } from 'node:https';
import makeWASocket, { WA_CERT_DETAILS, initAuthCreds } from '@whiskeysockets/baileys';
import type { AuthenticationCreds, BaileysEventMap, ConnectionState, WASocket } from '@whiskeysockets/baileys';
import { MemoryKeyStore } from '../../src/key-store.js';
import { silentLogger } from '../../src/logger.js';
import type { RunningEmulator } from '../../src/index.js';

type Ev = WASocket['ev'];

/** Resolves with the first event payload `pick` maps to something truthy. */
export const waitForEvent = <K extends keyof BaileysEventMap, R>(
  ev: Ev,
  name: K,
  pick: (payload: BaileysEventMap[K]) => R | undefined | false | null,
  timeoutMs = 15_000,
): Promise<R> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      ev.off(name, listener);
      reject(new Error(`timed out waiting for ${String(name)}`));
    }, timeoutMs);
    const listener = (payload: BaileysEventMap[K]): void => {
      const result = pick(payload);
      if (result === undefined || result === false || result === null) return;
      clearTimeout(timer);
      ev.off(name, listener);
      resolve(result);
    };
    ev.on(name, listener);
  });

export const nextConnectionUpdate = (sock: WASocket, pick: (u: Partial<ConnectionState>) => boolean, timeoutMs?: number) =>
  waitForEvent(sock.ev, 'connection.update', (u) => (pick(u) ? u : undefined), timeoutMs);

/** The status code Baileys closed with (`lastDisconnect.error.output.statusCode`). */
export const closeCode = (update: Partial<ConnectionState>): number | undefined => {
  const error = update.lastDisconnect?.error as { output?: { statusCode?: number } } | undefined;
  return error?.output?.statusCode;
};

/**
 * A real Baileys client with in-memory credentials, trusting exactly this emulator: its root key
 * for the Noise certificates, its media certificate for uploads.
 */
export class TestClient {
  readonly creds: AuthenticationCreds = initAuthCreds();
  readonly keys = new MemoryKeyStore();
  sock: WASocket | undefined;
  private agent!: Agent;
  private emulator!: RunningEmulator;

  constructor(
    emulator: RunningEmulator,
    private readonly extra: Partial<Parameters<typeof makeWASocket>[0]> = {},
  ) {
    this.useNetwork(emulator);
  }

  /** Points the client (same credentials) at an emulator, e.g. the same network after a restart. */
  useNetwork(emulator: RunningEmulator): void {
    this.emulator = emulator;
    WA_CERT_DETAILS.PUBLIC_KEY = emulator.rootPublicKey;
    this.agent = new Agent({ ca: emulator.mediaCertificatePem });
  }

  connect(): WASocket {
    const sock = makeWASocket({
      waWebSocketUrl: this.emulator.wsUrl,
      auth: { creds: this.creds, keys: this.keys },
      logger: silentLogger,
      fetchAgent: this.agent,
      browser: ['Ubuntu', 'Chrome', '22.04'],
      markOnlineOnConnect: false,
      enableRecentMessageCache: false,
      shouldSyncHistoryMessage: () => false,
      ...this.extra,
    });
    sock.ev.on('creds.update', (update) => Object.assign(this.creds, update));
    this.sock = sock;
    return sock;
  }

  /** Connects and resolves once the connection is open. */
  async open(): Promise<WASocket> {
    const sock = this.connect();
    await nextConnectionUpdate(sock, (u) => u.connection === 'open', 20_000);
    return sock;
  }

  end(): void {
    this.sock?.end(undefined);
  }
}
