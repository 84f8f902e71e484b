import { processMetrics, startMetricsServer } from '@switchboard/telemetry';
import type { Logger, MetricsServer } from '@switchboard/telemetry';
import type { SwitchboardConfig } from './config.js';

/**
 * The `/metrics` endpoint of a service process (quota, sessions, messaging in the distributed
 * mode) on `SWITCHBOARD_METRICS_PORT`, bound on `SWITCHBOARD_HOST`, else on loopback: a metrics port
 * must not open to the network by surprise (the image and the manifests set 0.0.0.0). Undefined
 * when the variable is unset.
 */
export async function startMetricsEndpoint(config: Pick<SwitchboardConfig, 'host' | 'metricsPort'>, logger: Logger): Promise<MetricsServer | undefined> {
  if (config.metricsPort === undefined) return undefined;
  const server = await startMetricsServer({ registry: processMetrics().registry, host: config.host ?? '127.0.0.1', port: config.metricsPort });
  logger.info({ url: server.url }, 'metrics endpoint listening');
  return server;
}
