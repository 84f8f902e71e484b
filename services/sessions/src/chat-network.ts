import { join } from 'node:path';
import { ConfigError, serviceDataDir } from '@switchboard/service-kit';
import type { SwitchboardConfig } from '@switchboard/service-kit';
import { BaileysChatNetwork, resolveSecretKey, SqliteCredentialsStore } from './chat/index.js';
import type { BaileysChatNetworkOptions, ChatDriver, ChatNetworkConfig } from './chat/index.js';

/** Test and embedding overrides of the chat network; production reads everything from config. */
export interface ChatNetworkOverrides {
  /** Replaces the network chosen by `SWITCHBOARD_CHAT_NETWORK` / `SWITCHBOARD_EMULATOR_URL`. */
  network?: ChatNetworkConfig;
  qrTimeoutMs?: BaileysChatNetworkOptions['qrTimeoutMs'];
  reconnect?: BaileysChatNetworkOptions['reconnect'];
  /** Sees every driver this service creates (tests record the pairing codes the network issued). */
  onDriver?: (sessionId: string, driver: ChatDriver) => void;
}

export interface OpenedChatNetwork {
  createDriver(sessionId: string): ChatDriver;
  wipeCredentials(sessionId: string): void;
  close(): void;
}

/**
 * The chat side of the service: the network from config (`whatsapp`, or `emulator` at
 * `SWITCHBOARD_EMULATOR_URL`, loopback only), and the encrypted credentials store in the
 * service's data dir. The key is `SWITCHBOARD_SECRET_KEY`; only the embedded mode (no NATS)
 * may generate one into the data dir on first start.
 */
export async function openChatNetwork(config: SwitchboardConfig, overrides: ChatNetworkOverrides = {}): Promise<OpenedChatNetwork> {
  const dir = serviceDataDir('sessions', config);
  const key = resolveSecretKey({ configured: config.secretKey, dataDir: dir, embedded: config.natsUrl === undefined });
  const credentials = new SqliteCredentialsStore({ path: join(dir, 'chat-credentials.sqlite'), key });
  try {
    const network = await BaileysChatNetwork.connect({
      network: overrides.network ?? networkFromConfig(config),
      credentials,
      ackTimeoutMs: config.sendDeadlineMs,
      ...(overrides.qrTimeoutMs === undefined ? {} : { qrTimeoutMs: overrides.qrTimeoutMs }),
      ...(overrides.reconnect === undefined ? {} : { reconnect: overrides.reconnect }),
    });
    return {
      createDriver: (sessionId) => {
        const driver = network.createDriver(sessionId);
        overrides.onDriver?.(sessionId, driver);
        return driver;
      },
      wipeCredentials: (sessionId) => credentials.wipe(sessionId),
      close: () => credentials.close(),
    };
  } catch (error) {
    credentials.close();
    throw error;
  }
}

function networkFromConfig(config: SwitchboardConfig): ChatNetworkConfig {
  if (config.chatNetwork === 'whatsapp') return { kind: 'whatsapp' };
  if (!config.emulatorUrl) throw new ConfigError(['SWITCHBOARD_EMULATOR_URL: required with SWITCHBOARD_CHAT_NETWORK=emulator in a process of its own (the embedded app starts an emulator in-process)']);
  return { kind: 'emulator', url: config.emulatorUrl };
}
