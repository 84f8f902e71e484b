import type { z } from 'zod';

/** Every `/v1/...` endpoint also answers under `/api/v1/...`, identically (api-decisions.md). */
export const API_PATH_ALIASES = ['', '/api'] as const;

/** The paths an endpoint answers on: `/v1/x` and `/api/v1/x`; probes (`/healthz`) only as given. */
export function pathsOf(path: string): string[] {
  return path.startsWith('/v1/') ? API_PATH_ALIASES.map((alias) => `${alias}${path}`) : [path];
}

/**
 * One HTTP endpoint: method, path (fastify `:param` syntax), success status, and the schemas of
 * its inputs and success body. Used for routing, validation and the OpenAPI document.
 */
export interface EndpointContract {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly status: 200 | 201;
  readonly body?: z.ZodType;
  readonly query?: z.ZodType;
  readonly params?: z.ZodType;
  readonly response: z.ZodType;
}
