import { processMetrics } from '@switchboard/telemetry';
import type { FastifyInstance } from 'fastify';

/** Where Prometheus scrapes the gateway (and, in the embedded mode, every service of the process). */
export const METRICS_PATH = '/metrics';

/**
 * `GET /metrics`: the process's metrics in the Prometheus text format, without a key, like the
 * probes. Decided so because Prometheus scrapes with no credentials by default and the metrics
 * hold no account id, phone number, message id or key (bounded labels only, see `createMetrics`);
 * what they do reveal is traffic volume, so an internet-facing ingress should not route this path.
 */
export function registerMetricsRoute(app: FastifyInstance): void {
  const { registry } = processMetrics();
  app.get(METRICS_PATH, async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()));
}
