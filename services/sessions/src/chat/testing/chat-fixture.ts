import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatDriver, DriverOptions } from '../driver.js';
import { BaileysChatNetwork, type BaileysChatNetworkOptions } from '../baileys/baileys-chat-network.js';
import { SqliteCredentialsStore } from '../credentials/sqlite-credentials-store.js';
import { EmulatorControlClient } from '@switchboard/chat-emulator';

/** Where a running emulator listens, and the test trust it hands out. */
export interface EmulatorEndpoints {
  wsUrl: string;
  controlUrl: string;
  rootPublicKey?: Buffer;
  mediaCertificatePem?: string;
}

export type ChatFixtureOptions = Pick<BaileysChatNetworkOptions, 'qrTimeoutMs' | 'ackTimeoutMs' | 'reconnect' | 'keepAliveIntervalMs' | 'latestWaWebVersion'> & {
  /** Reuse this credentials directory (and keep it on close); default a new temp dir. */
  dataDir?: string;
  /** Default a random key. */
  secretKey?: Buffer;
};

/**
 * A credentials file in a temp dir, a Baileys network pointed at the emulator, and the drivers
 * made from it, all stopped and removed by `close()`.
 */
export class ChatFixture {
  readonly drivers: ChatDriver[] = [];

  private constructor(
    readonly network: BaileysChatNetwork,
    readonly store: SqliteCredentialsStore,
    readonly control: EmulatorControlClient,
    readonly dataDir: string,
    readonly secretKey: Buffer,
    private readonly ownsDataDir: boolean,
  ) {}

  static async create(emulator: EmulatorEndpoints, options: ChatFixtureOptions = {}): Promise<ChatFixture> {
    const { dataDir, secretKey = randomBytes(32), ...networkOptions } = options;
    const dir = dataDir ?? mkdtempSync(join(tmpdir(), 'sb-chat-'));
    const store = new SqliteCredentialsStore({ path: join(dir, 'sessions.db'), key: secretKey });
    const network = await BaileysChatNetwork.connect({
      network: {
        kind: 'emulator',
        url: emulator.wsUrl,
        ...(emulator.rootPublicKey ? { rootPublicKey: emulator.rootPublicKey } : {}),
        ...(emulator.mediaCertificatePem ? { mediaCertificatePem: emulator.mediaCertificatePem } : {}),
      },
      credentials: store,
      reconnect: { initialDelayMs: 100, maxDelayMs: 2_000 },
      ...networkOptions,
    });
    return new ChatFixture(network, store, new EmulatorControlClient(emulator.controlUrl), dir, secretKey, dataDir === undefined);
  }

  driver(sessionId: string, options?: DriverOptions): ChatDriver {
    const driver = this.network.createDriver(sessionId, options);
    this.drivers.push(driver);
    return driver;
  }

  async close(): Promise<void> {
    await Promise.all(this.drivers.map((driver) => driver.stop()));
    await this.store.close();
    if (this.ownsDataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

let nextPhone = 0;
/** A phone number no other test of this process uses. */
export function uniquePhone(prefix = '1555'): string {
  nextPhone += 1;
  return `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(nextPhone).padStart(4, '0')}`;
}
