import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { ConfigError, serviceDataDir } from '@switchboard/service-kit';
import type { SwitchboardConfig } from '@switchboard/service-kit';
import { createLogger } from '@switchboard/telemetry';
import type { Logger } from '@switchboard/telemetry';
import { BaileysChatNetwork, KvCredentialsStore, resolveSecretKey, SqliteCredentialsStore } from './chat/index.js';
import type { BaileysChatNetworkOptions, ChatDriver, ChatNetworkConfig, CredentialsStore, DriverOptions } from './chat/index.js';
import { connectNats } from './nats-kv.js';

/** Test and embedding overrides of the chat network; production reads everything from config. */
export interface ChatNetworkOverrides {
  /** Replaces the network chosen by `SWITCHBOARD_CHAT_NETWORK` / `SWITCHBOARD_EMULATOR_URL`. */
  network?: ChatNetworkConfig;
  qrTimeoutMs?: BaileysChatNetworkOptions['qrTimeoutMs'];
  reconnect?: BaileysChatNetworkOptions['reconnect'];
  keepAliveIntervalMs?: BaileysChatNetworkOptions['keepAliveIntervalMs'];
  connectTimeoutMs?: BaileysChatNetworkOptions['connectTimeoutMs'];
  latestWaWebVersion?: BaileysChatNetworkOptions['latestWaWebVersion'];
  /** Sees every driver this service creates (tests record the pairing codes the network issued). */
  onDriver?: (sessionId: string, driver: ChatDriver) => void;
}

export interface OpenedChatNetwork {
  createDriver(sessionId: string, options?: DriverOptions): ChatDriver;
  /** Resolves once the session's stored credentials are gone. A failure is logged too: a caller may not wait. */
  wipeCredentials(sessionId: string): Promise<void>;
  /** Closes the credentials store (and the NATS connection it opened); never rejects. */
  close(): Promise<void>;
}

/**
 * The chat side of the service: the network from config (`whatsapp`, or `emulator` at
 * `SWITCHBOARD_EMULATOR_URL`, loopback only), and the encrypted credentials store: a SQLite file in
 * the service's data dir in the embedded mode, the JetStream KV bucket `sb_chat_credentials` that
 * every replica reads when `SWITCHBOARD_NATS_URL` is set. The key is `SWITCHBOARD_SECRET_KEY`; only
 * the embedded mode (no NATS) may generate one into the data dir on first start.
 */
export async function openChatNetwork(
  config: SwitchboardConfig,
  overrides: ChatNetworkOverrides = {},
  /** The service's NATS connection for its KV buckets; unset, the distributed mode opens one of its own (closed by `close()`). */
  connection?: NatsConnection,
  /** Where failed credential writes are told; default a `sessions` logger on stdout. */
  logger: Logger = createLogger({ service: 'sessions' }),
): Promise<OpenedChatNetwork> {
  const dir = serviceDataDir('sessions', config);
  const key = resolveSecretKey({ configured: config.secretKey, dataDir: dir, embedded: config.natsUrl === undefined });
  const credentials = await openCredentialsStore(config, { dir, key, connection });
  const close = () => credentials.close().catch((error: unknown) => logger.warn({ err: error }, 'chat credentials store not closed cleanly'));
  try {
    const network = await BaileysChatNetwork.connect({
      network: overrides.network ?? networkFromConfig(config),
      credentials: credentials.store,
      ackTimeoutMs: config.sendDeadlineMs,
      onCredentialsSaveFailed: (sessionId, error) => logger.warn({ err: error, sessionId }, 'chat credentials not saved; retrying'),
      ...(overrides.qrTimeoutMs === undefined ? {} : { qrTimeoutMs: overrides.qrTimeoutMs }),
      ...(overrides.reconnect === undefined ? {} : { reconnect: overrides.reconnect }),
      ...(overrides.keepAliveIntervalMs === undefined ? {} : { keepAliveIntervalMs: overrides.keepAliveIntervalMs }),
      ...(overrides.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: overrides.connectTimeoutMs }),
      ...(overrides.latestWaWebVersion === undefined ? {} : { latestWaWebVersion: overrides.latestWaWebVersion }),
    });
    return {
      createDriver: (sessionId, driverOptions) => {
        const driver = network.createDriver(sessionId, driverOptions);
        overrides.onDriver?.(sessionId, driver);
        return driver;
      },
      wipeCredentials: (sessionId) => {
        const wiped = credentials.store.wipe(sessionId);
        wiped.catch((error: unknown) => logger.error({ err: error, sessionId }, 'stored chat credentials of an ended session not wiped'));
        return wiped;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

interface OpenedCredentials {
  store: CredentialsStore;
  close(): Promise<void>;
}

/** SQLite in the data dir without NATS; with NATS the shared KV bucket, on the given connection or its own. */
async function openCredentialsStore(
  config: SwitchboardConfig,
  options: { dir: string; key: Buffer; connection: NatsConnection | undefined },
): Promise<OpenedCredentials> {
  const { dir, key, connection } = options;
  if (config.natsUrl === undefined) {
    const store = new SqliteCredentialsStore({ path: join(dir, 'chat-credentials.sqlite'), key });
    return { store, close: () => store.close() };
  }
  if (connection) {
    const store = await KvCredentialsStore.open(connection, { key });
    return { store, close: () => store.close() };
  }
  const own = await connectNats(config.natsUrl, 'sessions-credentials');
  try {
    const store = await KvCredentialsStore.open(own, { key });
    return { store, close: () => store.close().finally(() => own.close()) };
  } catch (error) {
    await own.close();
    throw error;
  }
}

function networkFromConfig(config: SwitchboardConfig): ChatNetworkConfig {
  if (config.chatNetwork === 'whatsapp') return { kind: 'whatsapp' };
  if (!config.emulatorUrl) throw new ConfigError(['SWITCHBOARD_EMULATOR_URL: required with SWITCHBOARD_CHAT_NETWORK=emulator in a process of its own (the embedded app starts an emulator in-process)']);
  return { kind: 'emulator', url: config.emulatorUrl };
}
