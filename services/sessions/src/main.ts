import { createBus } from '@switchboard/bus';
import { ConfigError, loadConfig, startMetricsEndpoint } from '@switchboard/service-kit';
import { createLogger, startTelemetry } from '@switchboard/telemetry';
import { startSessionsService } from './service.js';

// Distributed entry point: one sessions process on NATS. A stop signal closes the connections
// WITHOUT logging out (credentials stay), so the next start resumes every connected session.

const telemetry = startTelemetry({ serviceName: 'sessions' });
const logger = createLogger({ service: 'sessions' });

async function main(): Promise<void> {
  const config = loadConfig();
  if (!config.natsUrl) throw new ConfigError('SWITCHBOARD_NATS_URL is required for the distributed sessions service');
  const bus = await createBus({ name: 'sessions' });
  const service = await startSessionsService({ bus, config, logger });
  const metrics = await startMetricsEndpoint(config, logger);
  logger.info('sessions service ready');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    await service.close();
    await bus.close();
    await metrics?.close();
    await telemetry.shutdown();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  logger.fatal({ err: error }, 'sessions service failed to start');
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100).unref();
});
