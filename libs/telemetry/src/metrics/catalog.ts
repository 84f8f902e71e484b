import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { registerEventLoopDelay } from './event-loop-delay.js';
import { SourcedGauge } from './sourced-gauge.js';

/** Request-scale latencies: a millisecond up to the send deadline's order of magnitude. */
export const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Human-scale latencies: a recipient's phone may report delivery seconds to hours later. */
export const DELIVERY_BUCKETS_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 21600];

/**
 * Every Switchboard metric, in one registry. Label values are bounded by construction: routes
 * are route templates, subjects are fixed `sb.v1.*` names, outcomes are `ok`/`sent`/`pending`
 * or a public error code. No label ever carries an account id, a phone number or a message id.
 */
export interface SwitchboardMetrics {
  readonly registry: Registry;
  /** Gateway: one per HTTP response. */
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpRequestDuration: Histogram<'method' | 'route' | 'status'>;
  /** Messaging: one per send request it answered (`sent`, `pending` or the error code). */
  readonly sends: Counter<'type' | 'outcome'>;
  /** Sessions: from handing a message to the chat driver until the network acknowledged it. */
  readonly sendAckDuration: Histogram<'type' | 'outcome'>;
  /** Messaging: from the network's acknowledgement (`sentAt`) to the recipient's receipt. */
  readonly deliveryLatency: Histogram<'receipt'>;
  /** Sessions: sessions per state, read from the session list read model at scrape time. */
  readonly sessions: SourcedGauge<'state'>;
  /** Every process: bus request/reply round trips, as seen by the caller. */
  readonly busRequestDuration: Histogram<'subject' | 'outcome'>;
  /** Every process with an event store: appends, conflicts included (`outcome`). */
  readonly eventStoreAppendDuration: Histogram<'system' | 'category' | 'outcome'>;
  /** Every projection: events in its category not yet applied, at scrape time. */
  readonly projectionLag: SourcedGauge<'projection'>;
  /** Quota: reservations refused because a plan limit was reached. */
  readonly quotaRejections: Counter<'kind'>;
  /** Every SQLite write transaction committed, by database file (its folder and name: `messaging/events.sqlite`). */
  readonly sqliteTransactions: Counter<'database'>;
  /** Every query the PostgreSQL event store sends (one round trip each, a multi-statement one included), by schema. */
  readonly postgresQueries: Counter<'schema'>;
  /** Sessions: chat connections this process holds (a replica's share of the sessions), at scrape time. */
  readonly chatConnections: SourcedGauge<never>;
}

/**
 * prom-client's own event-loop delay monitor wakes the process at a fixed period; its gauges are
 * replaced by `registerEventLoopDelay`'s (same names, a period that follows the load), so its
 * monitor gets a period it never reaches (about 24 days, the longest a timer takes).
 */
const NEVER_MS = 2 ** 31 - 1;

export interface CreateMetricsOptions {
  /** Node's process metrics (`process_*`, `nodejs_*`, unprefixed as dashboards expect). Default true. */
  defaultMetrics?: boolean;
}

export function createMetrics(options: CreateMetricsOptions = {}): SwitchboardMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) {
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: NEVER_MS });
    registerEventLoopDelay(registry);
  }
  const registers = [registry];
  const latency = { buckets: LATENCY_BUCKETS_SECONDS, registers };
  return {
    registry,
    httpRequests: new Counter({ name: 'switchboard_http_requests_total', help: 'HTTP responses by route template and status', labelNames: ['method', 'route', 'status'], registers }),
    httpRequestDuration: new Histogram({ name: 'switchboard_http_request_duration_seconds', help: 'HTTP request latency by route template and status', labelNames: ['method', 'route', 'status'], ...latency }),
    sends: new Counter({ name: 'switchboard_sends_total', help: 'Send requests answered by the messaging service, by message type and outcome (sent, pending or error code)', labelNames: ['type', 'outcome'], registers }),
    sendAckDuration: new Histogram({ name: 'switchboard_send_ack_duration_seconds', help: 'Chat driver send until the network acknowledged it, by message type and outcome', labelNames: ['type', 'outcome'], ...latency }),
    deliveryLatency: new Histogram({ name: 'switchboard_delivery_latency_seconds', help: 'Network acknowledgement until the recipient receipt (delivered, read)', labelNames: ['receipt'], buckets: DELIVERY_BUCKETS_SECONDS, registers }),
    sessions: new SourcedGauge({ name: 'switchboard_sessions', help: 'Sessions by state (pending, connected, disconnected, timeout, error)', labelNames: ['state'], registers }),
    busRequestDuration: new Histogram({ name: 'switchboard_bus_request_duration_seconds', help: 'Bus request/reply round trips by subject and outcome (ok or error code)', labelNames: ['subject', 'outcome'], ...latency }),
    eventStoreAppendDuration: new Histogram({ name: 'switchboard_eventstore_append_duration_seconds', help: 'Event store appends by store, stream category and outcome', labelNames: ['system', 'category', 'outcome'], ...latency }),
    projectionLag: new SourcedGauge({ name: 'switchboard_projection_lag_events', help: 'Events of the projection category appended but not yet applied (capped at 10000)', labelNames: ['projection'], registers }),
    quotaRejections: new Counter({ name: 'switchboard_quota_rejections_total', help: 'Reservations refused by a plan limit, by kind (daily_messages, sessions)', labelNames: ['kind'], registers }),
    sqliteTransactions: new Counter({ name: 'switchboard_sqlite_transactions_total', help: 'SQLite write transactions committed, by database file (folder/name)', labelNames: ['database'], registers }),
    postgresQueries: new Counter({ name: 'switchboard_postgres_queries_total', help: 'Round trips of the PostgreSQL event store (its LISTEN connection excepted), by schema', labelNames: ['schema'], registers }),
    chatConnections: new SourcedGauge({ name: 'switchboard_chat_connections', help: 'Chat connections held by this sessions process (its share of the sessions)', labelNames: [], registers }),
  };
}

const PROCESS_METRICS = Symbol.for('@switchboard/telemetry.metrics');

/**
 * The process's metrics. One per process, kept on `globalThis` so that two copies of this module
 * (a test loading sources next to a built package) still count into the registry `/metrics` shows.
 */
export function processMetrics(): SwitchboardMetrics {
  const holder = globalThis as { [PROCESS_METRICS]?: SwitchboardMetrics };
  holder[PROCESS_METRICS] ??= createMetrics();
  return holder[PROCESS_METRICS];
}
