import { createBus } from '@switchboard/bus';
import { ConfigError, exitOnStartFailure, loadConfig, portVariablesOf, startMemoryReclaimer } from '@switchboard/service-kit';
import { createLogger, startTelemetry } from '@switchboard/telemetry';
import { buildGateway } from './app.js';

/**
 * The gateway as its own process (distributed mode): HTTP on SWITCHBOARD_PORT, the services over
 * NATS. The embedded default (`npm start`) builds the same app on the in-process bus instead.
 */
async function main(): Promise<void> {
  const telemetry = startTelemetry({ serviceName: 'gateway' });
  const logger = createLogger({ service: 'gateway' });
  const config = loadConfig();
  if (!config.natsUrl) {
    // Alone on an in-process bus the gateway would reach no service at all.
    throw new ConfigError(['SWITCHBOARD_NATS_URL: required to run the gateway as its own process (npm start runs everything in one)']);
  }
  const bus = await createBus({ name: 'gateway', logger });
  const app = await buildGateway({ bus, config, logger });
  // In its own process the gateway is meant to be reached from outside (a container, a pod).
  await app.listen({ host: config.host ?? '0.0.0.0', port: config.port });
  // Large bodies leave garbage an idle process would keep for good.
  startMemoryReclaimer({ logger });
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing requests in flight');
    await app.close();
    await bus.close();
    await telemetry.shutdown();
    process.exit(0);
  };
  // `on`, not `once`: a second signal while stopping must not kill it halfway through its close.
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => exitOnStartFailure('gateway', error, portVariablesOf(process.env)));
