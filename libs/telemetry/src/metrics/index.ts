export { DELIVERY_BUCKETS_SECONDS, LATENCY_BUCKETS_SECONDS, createMetrics, processMetrics } from './catalog.js';
export type { CreateMetricsOptions, SwitchboardMetrics } from './catalog.js';
export { SourcedGauge } from './sourced-gauge.js';
export type { GaugeSource } from './sourced-gauge.js';
export { outcomeOf, routeLabel, secondsBetween, timeAsync } from './timing.js';
export { startMetricsServer } from './server.js';
export type { MetricsServer, MetricsServerOptions } from './server.js';
