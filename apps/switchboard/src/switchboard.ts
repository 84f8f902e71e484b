import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createBus, InProcessBus } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { startEmulator } from '@switchboard/chat-emulator';
import type { RunningEmulator } from '@switchboard/chat-emulator';
import { startEventsService } from '@switchboard/events';
import { buildGateway } from '@switchboard/gateway';
import { startMessagingService } from '@switchboard/messaging';
import { startQuotaService } from '@switchboard/quota';
import { loadConfig, startMetricsEndpoint } from '@switchboard/service-kit';
import type { SwitchboardConfig } from '@switchboard/service-kit';
import { startSessionsService } from '@switchboard/sessions';
import { createLogger, startTelemetry } from '@switchboard/telemetry';
import type { Logger } from '@switchboard/telemetry';
import { auditExporter } from './cli/audit/export-writer.js';

export interface StartSwitchboardOptions {
  env?: Record<string, string | undefined>;
  logger?: Logger;
  /** Receives the bootstrap account's key on the very first start (print it once, never log it). */
  onBootstrapKey?: (apiKey: string, accountId: string) => void;
}

export interface RunningSwitchboard {
  /** `http://host:port` the gateway listens on. */
  url: string;
  config: SwitchboardConfig;
  /** The in-process chat network emulator, when `SWITCHBOARD_CHAT_NETWORK=emulator` started one. */
  emulator: RunningEmulator | undefined;
  close(): Promise<void>;
}

/**
 * The embedded default (`npm start`): the gateway and the four services in one process, over
 * the in-process bus (or NATS when `SWITCHBOARD_NATS_URL` is set), each service with its own
 * SQLite store under `SWITCHBOARD_DATA_DIR`. In emulator mode without `SWITCHBOARD_EMULATOR_URL`
 * an emulator starts in-process, keeping its state in the data dir like the real network would.
 */
export async function startSwitchboard(options: StartSwitchboardOptions = {}): Promise<RunningSwitchboard> {
  const env = options.env ?? process.env;
  let config = loadConfig(env);
  const logger = options.logger ?? createLogger({ service: 'switchboard' });
  const telemetry = startTelemetry({ serviceName: 'switchboard', env });
  const closers: (() => Promise<unknown>)[] = [() => telemetry.shutdown()];
  const close = async () => {
    for (const closeNext of closers.reverse()) await closeNext().catch((error: unknown) => logger.error({ err: error }, 'shutdown step failed'));
  };
  try {
    const emulator = await startEmbeddedEmulator(config);
    if (emulator) {
      closers.push(() => emulator.stop());
      config = { ...config, emulatorUrl: emulator.wsUrl };
    }
    const bus = await createBus({ name: 'switchboard', env, embedded: new InProcessBus({ logger }) });
    closers.push(() => bus.close());
    // Ports first: a port in use stops the start before anything is created (the first account's
    // key would be shown and lost). Until the services are up the gateway answers 503, /readyz not ready.
    // In one process with the services, the gateway can read their stores: it serves the audit export.
    const gateway = await buildGateway({ bus, config, logger, auditExport: auditExporter(config) });
    closers.push(() => gateway.close());
    await gateway.listen({ host: config.host ?? '127.0.0.1', port: config.port });
    // The gateway's /metrics already covers this one process; a separate port only when asked for.
    const metrics = await startMetricsEndpoint({ ...config, host: config.host ?? '127.0.0.1' }, logger);
    if (metrics) closers.push(() => metrics.close());
    await startServices(bus, config, logger, closers, options.onBootstrapKey);
    const address = gateway.server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return { url: `http://${host}:${address.port}`, config, emulator, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function startEmbeddedEmulator(config: SwitchboardConfig): Promise<RunningEmulator | undefined> {
  if (config.chatNetwork !== 'emulator' || config.emulatorUrl) return undefined;
  return startEmulator({ port: config.emulatorPort, controlPort: config.emulatorControlPort, addressing: config.emulatorAddressing, dataDir: join(config.dataDir, 'emulator') });
}

/** Quota first (sessions reserve slots, the gateway authenticates), then sessions, messaging, events. */
async function startServices(
  bus: Bus,
  config: SwitchboardConfig,
  logger: Logger,
  closers: (() => Promise<unknown>)[],
  onBootstrapKey: StartSwitchboardOptions['onBootstrapKey'],
): Promise<void> {
  const quota = await startQuotaService({ bus, config, logger: logger.child({ component: 'quota' }) });
  closers.push(() => quota.close());
  if (quota.bootstrap?.apiKey) onBootstrapKey?.(quota.bootstrap.apiKey, quota.bootstrap.accountId);
  const sessions = await startSessionsService({ bus, config, logger: logger.child({ component: 'sessions' }) });
  closers.push(() => sessions.close());
  const messaging = await startMessagingService({ bus, config, logger: logger.child({ component: 'messaging' }) });
  closers.push(() => messaging.close());
  // Last: it reads the public feeds of sessions and messaging (and catches up on what they wrote meanwhile).
  const events = await startEventsService({ bus, config, logger: logger.child({ component: 'events' }) });
  closers.push(() => events.close());
}
