import type { BlobStore } from '@switchboard/blob-store';
import type { Bus } from '@switchboard/bus';
import type { SwitchboardConfig } from '@switchboard/service-kit';
import type { Authenticator } from '../auth/authenticator.js';
import type { AuditExporter } from '../routes/audit.js';
import type { Principal } from '../auth/principal.js';
import type { RequestTrace } from './trace.js';

/** What every route reaches through `app.gateway`. */
export interface GatewayDeps {
  readonly bus: Bus;
  readonly config: SwitchboardConfig;
  readonly auth: Authenticator;
  /** Services `/readyz` asks over `sb.v1.<service>.ready`. */
  readonly services: readonly string[];
  /** The media blob store shared with messaging and sessions: inline media goes there, not on the bus. */
  readonly blobs: BlobStore;
  /** Reads the event stores for GET /v1/admin/audit/export; only where they can be opened (the embedded app). */
  readonly auditExport: AuditExporter | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    gateway: GatewayDeps;
  }
  interface FastifyRequest {
    /** The request's SERVER span; `request.id` is its trace id. */
    sbTrace: RequestTrace;
    /** Set by the auth hook of authenticated routes; null on public ones. */
    principal: Principal | null;
  }
}
