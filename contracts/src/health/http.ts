import { z } from 'zod';
import type { EndpointContract } from '../common/routes.js';

/**
 * Probe bodies. Unauthenticated and outside the `/v1` envelopes on purpose: orchestrators read
 * the status code, people read the body.
 */

/** GET /healthz: the process is alive (200 always while it can answer). */
export const HealthzResponse = z.object({ status: z.literal('ok').meta({ description: 'Always `ok`.', example: 'ok' }) });
export type HealthzResponse = z.infer<typeof HealthzResponse>;

/** One readiness dependency: the bus, an event store, a read model's catch-up. */
export const ReadinessCheck = z.object({
  ok: z.boolean().meta({ description: 'Whether this part is ready.', example: true }),
  detail: z.string().optional().meta({ description: 'Why not, or what was checked.', example: 'the bus is unreachable' }),
  advisory: z.boolean().optional().meta({ description: '`true`: reported for people, not counted for readiness (e.g. `chatNetwork`).', example: true }),
});
export type ReadinessCheck = z.infer<typeof ReadinessCheck>;

/**
 * GET /readyz: 200 with `ready` when every check passes, else 503 with `not_ready`.
 * Check names are stable keys such as `bus`, `eventStore`, `readModels`.
 */
export const ReadyzResponse = z.object({
  status: z.enum(['ready', 'not_ready']).meta({ description: '`ready` (200) when every check passes, else `not_ready` (503).', example: 'ready' }),
  checks: z.record(z.string(), ReadinessCheck).meta({ description: 'Each part by name (`bus`, `eventStore`, `readModels`, ...).' }),
});
export type ReadyzResponse = z.infer<typeof ReadyzResponse>;

export const HEALTH_ENDPOINTS = {
  healthz: { method: 'GET', path: '/healthz', status: 200, response: HealthzResponse },
  readyz: { method: 'GET', path: '/readyz', status: 200, response: ReadyzResponse },
} as const satisfies Record<string, EndpointContract>;
