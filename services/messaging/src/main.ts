import { createBus } from '@switchboard/bus';
import { loadConfig, startMetricsEndpoint } from '@switchboard/service-kit';
import { createLogger, startTelemetry } from '@switchboard/telemetry';
import { startMessagingService } from './service.js';

/** Distributed entry point: one messaging-service process on NATS (`SWITCHBOARD_NATS_URL`). */
async function main(): Promise<void> {
  // Traces from OTEL_* (off when unset), before anything that could open a span.
  const telemetry = startTelemetry({ serviceName: 'messaging' });
  const config = loadConfig(process.env);
  const logger = createLogger({ service: 'messaging' });
  const bus = await createBus({ name: 'messaging', env: process.env });
  const service = await startMessagingService({ bus, config, logger });
  const metrics = await startMetricsEndpoint(config, logger);
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    // Deliveries still running are recorded as accepted in their streams: the next start (or
    // another replica's sweep) finishes them with the same message ids.
    logger.info({ signal }, 'messaging service stopping');
    await service.close();
    await bus.close();
    await metrics?.close();
    await telemetry.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  process.stderr.write(`messaging service failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
