import type { FastifyInstance } from 'fastify';
import { registerAdminRoutes } from './admin.js';
import { registerAuditRoutes } from './audit.js';
import { registerSessionRoutes } from './sessions.js';
import { registerMessageRoutes } from './messages.js';
import { registerEventStreamRoute } from './event-stream.js';
import { registerWebhookRoutes } from './webhooks.js';

/** Registers one group of endpoints with `defineRoute` (see ./kit.ts and the README). */
export type RouteRegistrar = (app: FastifyInstance) => void;

/**
 * The gateway's resource endpoints. Session and message routes are added here as
 * `registerSessionRoutes` (./sessions.ts) and `registerMessageRoutes` (./messages.ts).
 */
export const ROUTE_MODULES: readonly RouteRegistrar[] = [registerAdminRoutes, registerAuditRoutes, registerSessionRoutes, registerMessageRoutes, registerWebhookRoutes, registerEventStreamRoute];
