import { HEALTH_ENDPOINTS, isApiError, readySubject } from '@switchboard/contracts';
import type { ReadinessCheck, ReadyzResponse } from '@switchboard/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import '../http/deps.js';
import { callService } from '@switchboard/bus';

/** Deadline for each service's readiness answer; probes must answer well within k8s' timeouts. */
export const READY_TIMEOUT_MS = 2_000;

/**
 * Probes, unauthenticated and outside the envelopes (contracts/src/health): `/healthz` says the
 * process answers; `/readyz` says the bus is connected and every service answered
 * `sb.v1.<service>.ready` with `ready: true`, else 503 naming what is missing.
 */
export function registerHealthRoutes(app: FastifyInstance): void {
  app.get(HEALTH_ENDPOINTS.healthz.path, async () => ({ status: 'ok' as const }));
  app.get(HEALTH_ENDPOINTS.readyz.path, async (request, reply) => {
    const body = await readiness(app, request);
    return reply.code(body.status === 'ready' ? 200 : 503).send(body);
  });
}

async function readiness(app: FastifyInstance, request: FastifyRequest): Promise<ReadyzResponse> {
  const { bus, services } = app.gateway;
  const checks: Record<string, ReadinessCheck> = {};
  checks['bus'] = bus.isConnected() ? { ok: true } : { ok: false, detail: 'not connected' };
  const answers = await Promise.all(services.map((service) => serviceCheck(app, request, service)));
  services.forEach((service, i) => Object.assign(checks, { [service]: answers[i]!.check }, answers[i]!.advisory));
  const ready = Object.values(checks).every((check) => check.ok || check.advisory === true);
  return { status: ready ? 'ready' : 'not_ready', checks };
}

/** A service's own check, and the advisory checks it reports (shown at the top level, never failing). */
async function serviceCheck(app: FastifyInstance, request: FastifyRequest, service: string): Promise<{ check: ReadinessCheck; advisory: Record<string, ReadinessCheck> }> {
  try {
    const reply = await callService(app.gateway.bus, readySubject(service), {}, {
      correlationId: request.id,
      timeoutMs: READY_TIMEOUT_MS,
      traceContext: request.sbTrace.context,
    });
    const advisory = Object.fromEntries(Object.entries(reply.details).filter(([, check]) => check.advisory === true));
    if (reply.ready) return { check: { ok: true }, advisory };
    const failing = Object.entries(reply.details).filter(([, check]) => !check.ok && check.advisory !== true);
    const detail = failing.map(([name, check]) => (check.detail ? `${name}: ${check.detail}` : name)).join('; ');
    return { check: { ok: false, detail: `not ready${detail ? ` (${detail})` : ''}` }, advisory };
  } catch (error) {
    return { check: { ok: false, detail: whyUnanswered(error, service) }, advisory: {} };
  }
}

function whyUnanswered(error: unknown, service: string): string {
  if (!isApiError(error)) return `the ${service} service gave an unreadable answer`;
  if (error.code === 'UPSTREAM_TIMEOUT') return `the ${service} service did not answer within ${READY_TIMEOUT_MS} ms`;
  if (error.code === 'SERVICE_UNAVAILABLE') return `no ${service} service answers on the bus`;
  return `the ${service} service answered ${error.code}`;
}
