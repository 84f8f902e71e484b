import { createBus } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { createLogger, startTelemetry } from '@switchboard/telemetry';
import type { Logger } from '@switchboard/telemetry';
import { ConfigError, loadConfig } from './config.js';
import type { SwitchboardConfig } from './config.js';
import { startMemoryReclaimer } from './memory-reclaimer.js';
import type { RunningService } from './microservice.js';
import { startMetricsEndpoint } from './observability.js';
import { exitOnStartFailure, portVariablesOf } from './start-failure.js';

export interface ServiceProcessContext {
  bus: Bus;
  config: SwitchboardConfig;
  logger: Logger;
}

/**
 * The distributed-mode process of one service (`node services/<name>/dist/src/main.js`): tracing
 * from OTEL_* first (before anything opens a span), config, logger, NATS, the service, its metrics
 * port, the memory reclaimer (large messages' garbage is given back); SIGTERM/SIGINT close it all
 * in reverse order and exit 0; a failed start exits 1.
 */
export function runServiceProcess<S extends RunningService>(
  name: string,
  start: (context: ServiceProcessContext) => Promise<S>,
  afterStart?: (service: S) => void,
): void {
  const telemetry = startTelemetry({ serviceName: name });
  const logger = createLogger({ service: name });
  const main = async () => {
    const config = loadConfig();
    // Alone on an in-process bus the service would reach no other service at all.
    if (!config.natsUrl) throw new ConfigError([`SWITCHBOARD_NATS_URL: required to run the ${name} service as its own process`]);
    const bus = await createBus({ name, logger });
    const service = await start({ bus, config, logger });
    const metrics = await startMetricsEndpoint(config, logger);
    startMemoryReclaimer({ logger });
    afterStart?.(service);
    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, `${name} service stopping`);
      await service.close();
      await bus.close();
      await metrics?.close();
      await telemetry.shutdown();
      process.exit(0);
    };
    // `on`, not `once`: a second signal while stopping (a supervisor repeating it, npm forwarding
    // Ctrl-C) must not kill the process halfway through its close.
    process.on('SIGTERM', () => void stop('SIGTERM'));
    process.on('SIGINT', () => void stop('SIGINT'));
    // Only now: a supervisor may signal as soon as it reads this, and the handlers must be there.
    logger.info(`${name} service ready`);
  };
  main().catch((error: unknown) => exitOnStartFailure(`${name} service`, error, portVariablesOf(process.env)));
}

