import { ApiError, BACKEND_SERVICES, HTTP_HEADERS } from '@switchboard/contracts';
import { lazyBlobStore } from '@switchboard/blob-store';
import type { BlobStore } from '@switchboard/blob-store';
import type { Bus } from '@switchboard/bus';
import type { SwitchboardConfig } from '@switchboard/service-kit';
import { processMetrics, routeLabel } from '@switchboard/telemetry';
import type { Logger } from '@switchboard/telemetry';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { maxHeaderSize } from 'node:http';
import { Authenticator } from './auth/authenticator.js';
import { BODY_LIMIT_BYTES, installJsonBodies } from './http/body.js';
import { answerClientErrors } from './http/client-errors.js';
import './http/deps.js';
import { sendError } from './http/errors.js';
import { installBodyRateFloor, REQUEST_LIMITS, serverTimeouts } from './http/request-limits.js';
import type { RequestLimits } from './http/request-limits.js';
import { endRequestTrace, rawTraces, startRequestTrace } from './http/trace.js';
import type { RequestTrace } from './http/trace.js';
import { LazyChildLogger } from './http/lazy-logger.js';
import { registerDocsRoutes } from './routes/docs.js';
import { registerHealthRoutes } from './routes/health.js';
import { registerMetricsRoute } from './routes/metrics.js';
import { ROUTE_MODULES } from './routes/index.js';
import type { RouteRegistrar } from './routes/index.js';
import type { AuditExporter } from './routes/audit.js';

export interface BuildGatewayOptions {
  bus: Bus;
  config: SwitchboardConfig;
  logger: Logger;
  /** Services `/readyz` waits for (`sb.v1.<service>.ready`); default sessions, messaging, quota. */
  services?: readonly string[];
  /** More route groups (the embedded app, tests), registered after the built-in ones. */
  routes?: readonly RouteRegistrar[];
  /** How long a key lookup is cached (ms); default AUTH_CACHE_TTL_MS. */
  authCacheTtlMs?: number;
  /** The media blob store; by default the mode's (data dir folder or NATS bucket), owned here. */
  blobStore?: BlobStore;
  /** Whole-request timeout and body-rate floor; default REQUEST_LIMITS (tests make them small). */
  requestLimits?: RequestLimits;
  /** Serves GET /v1/admin/audit/export from the event stores; without it that endpoint answers 503 (distributed mode). */
  auditExport?: AuditExporter;
}

/**
 * The HTTP gateway as a fastify app, routes registered and not listening: the caller listens
 * (`src/main.ts` in the distributed mode, the embedded app in `npm start`) or injects (tests).
 * Closing the app unsubscribes from the bus; the bus itself belongs to the caller.
 */
export async function buildGateway(options: BuildGatewayOptions): Promise<FastifyInstance> {
  const traces = rawTraces;
  const limits = options.requestLimits ?? REQUEST_LIMITS;
  const app = Fastify({
    loggerInstance: options.logger,
    childLoggerFactory: (logger, bindings, childOptions) => new LazyChildLogger(logger, bindings, childOptions),
    bodyLimit: BODY_LIMIT_BYTES,
    ...serverTimeouts(limits),
    // A long path parameter is the schema's to refuse (400 at params.<name>), not the router's;
    // node's header limit bounds the whole request line anyway.
    routerOptions: { maxParamLength: maxHeaderSize },
    // The request id IS the trace id of the request's span (X-Request-Id, error `requestId`).
    genReqId: (raw) => {
      const requestTrace = startRequestTrace(raw.method ?? 'GET', (raw.url ?? '/').split('?')[0] ?? '/');
      traces.set(raw, requestTrace);
      return requestTrace.traceId;
    },
    // A URL the router cannot decode is refused before routing: no hook runs, so the request id
    // header and the end of the span are done here.
    frameworkErrors: (error, request, reply) => {
      reply.header(HTTP_HEADERS.requestId, request.id);
      sendError(reply, error, request.id, request.log);
      const requestTrace = traces.get(request.raw);
      if (requestTrace) endRequestTrace(requestTrace, request.method, undefined, reply.statusCode);
    },
    clientErrorHandler: answerClientErrors({ limits, logger: options.logger, requestIdOf: (raw) => traces.get(raw)?.traceId }),
  }) as unknown as FastifyInstance;
  const auth = await Authenticator.start({ bus: options.bus, logger: app.log, adminApiKey: options.config.adminApiKey, cacheTtlMs: options.authCacheTtlMs });
  const { config } = options;
  const blobs = options.blobStore ?? lazyBlobStore({ dataDir: config.dataDir, natsUrl: config.natsUrl, name: 'gateway-media' });
  app.decorate('gateway', { bus: options.bus, config, auth, services: options.services ?? BACKEND_SERVICES, blobs, auditExport: options.auditExport });
  app.addHook('onClose', async () => {
    await auth.close();
    if (options.blobStore === undefined) await blobs.close();
  });
  installRequestHooks(app, traces);
  installJsonBodies(app);
  installBodyRateFloor(app, limits);
  app.setNotFoundHandler((request, reply) => sendError(reply, new ApiError('ROUTE_NOT_FOUND'), request.id, request.log));
  app.setErrorHandler((error, request, reply) => sendError(reply, error, request.id, request.log));
  registerHealthRoutes(app);
  await registerDocsRoutes(app);
  registerMetricsRoute(app);
  for (const register of [...ROUTE_MODULES, ...(options.routes ?? [])]) register(app);
  return app;
}

/**
 * The request's trace (started by `genReqId`) as `request.sbTrace`, `X-Request-Id` on every
 * answer, the span ended and the HTTP metrics recorded. Callback hooks, not async ones: an async
 * hook costs a promise and a microtask per request for work that never waits.
 */
function installRequestHooks(app: FastifyInstance, traces: typeof rawTraces): void {
  app.decorateRequest('sbTrace', {
    getter(this: FastifyRequest): RequestTrace {
      let requestTrace = traces.get(this.raw);
      if (requestTrace === undefined) {
        requestTrace = startRequestTrace(this.method, this.url);
        traces.set(this.raw, requestTrace);
      }
      return requestTrace;
    },
  });
  app.decorateRequest('principal', null);
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header(HTTP_HEADERS.requestId, request.id);
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    // `routeOptions` builds a new object on every read: read once.
    const route = request.routeOptions.url;
    endRequestTrace(request.sbTrace, request.method, route, reply.statusCode);
    recordHttpMetrics(request.method, route, reply.statusCode, reply.elapsedTime);
    done();
  });
  // A client that hangs up gets no response; its span still ends (499, as proxies log it).
  app.addHook('onRequestAbort', async (request) => {
    endRequestTrace(request.sbTrace, request.method, request.routeOptions.url, 499);
  });
}

/** `switchboard_http_requests_total` and `_duration_seconds`, by route template and status. */
function recordHttpMetrics(method: string, route: string | undefined, status: number, elapsedMs: number): void {
  const { httpRequests, httpRequestDuration } = processMetrics();
  const labels = { method, route: routeLabel(route), status: String(status) };
  httpRequests.inc(labels);
  httpRequestDuration.observe(labels, elapsedMs / 1000);
}
