import { createBus } from '@switchboard/bus';
import { loadConfig, startMetricsEndpoint } from '@switchboard/service-kit';
import { createLogger, startTelemetry } from '@switchboard/telemetry';
import { startQuotaService } from './service.js';

/** Distributed entry point: one quota-service process on NATS (`SWITCHBOARD_NATS_URL`). */
async function main(): Promise<void> {
  // Traces from OTEL_* (off when unset), before anything that could open a span.
  const telemetry = startTelemetry({ serviceName: 'quota' });
  const config = loadConfig(process.env);
  const logger = createLogger({ service: 'quota' });
  const bus = await createBus({ name: 'quota', env: process.env });
  const service = await startQuotaService({ bus, config, logger });
  const metrics = await startMetricsEndpoint(config, logger);
  if (service.bootstrap?.apiKey) {
    // The only place a key is ever printed: one plain stdout line, never through the logger.
    process.stdout.write(`Switchboard bootstrap account ${service.bootstrap.accountId} (plan ${service.bootstrap.plan}); API key, shown once: ${service.bootstrap.apiKey}\n`);
  }
  let stopping = false;
  const stop = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'quota service stopping');
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
  process.stderr.write(`quota service failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
