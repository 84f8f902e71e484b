import { ApiError, AUDIT_EXPORT_CONTENT_TYPE, AUDIT_EXPORT_ENDPOINT, auditTimeOf } from '@switchboard/contracts';
import type { AuditExportFormat } from '@switchboard/contracts';
import type { FastifyInstance } from 'fastify';
import type { Writable } from 'node:stream';
import { defineStreamRoute } from './kit.js';
import type { StreamRouteContext } from './kit.js';

/** What to export: an account's events recorded in [from, to), in a format. */
export interface AuditExportRequest {
  accountId: string;
  from: Date | undefined;
  to: Date | undefined;
  format: AuditExportFormat;
}

/**
 * Writes an account's audit export, read from the services' event stores. It calls `begin` once
 * it knows the account (an ApiError such as ACCOUNT_NOT_FOUND before then becomes the error
 * envelope) and writes to what `begin` returns; `signal` aborts when the client hangs up.
 * Given to the gateway by the process that can open the stores (the embedded app); a gateway of
 * its own (distributed mode) has none.
 */
export type AuditExporter = (request: AuditExportRequest, begin: () => Writable, signal: AbortSignal) => Promise<void>;

export const EXPORT_NOT_SERVED_HERE =
  'This gateway runs apart from the event stores (distributed mode) and does not serve the audit export; run ' +
  '`npx switchboard audit export --account <id> --out <file>` where SWITCHBOARD_DATA_DIR or SWITCHBOARD_EVENTSTORE_URL reaches the stores.';

/** `switchboard-audit-acc_…-20261121T101530Z.jsonl` */
export function exportFilename(accountId: string, format: AuditExportFormat, at: Date): string {
  return `switchboard-audit-${accountId}-${at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '')}.${format}`;
}

/**
 * GET /v1/admin/audit/export (admin scope): the account's recorded events as a file download,
 * streamed as the stores are read. Errors found before the first byte (an unknown account, no
 * exporter here) answer with the error envelope; a failure later ends the body without its
 * manifest, which `switchboard audit verify --file` reports as an incomplete export.
 */
export function registerAuditRoutes(app: FastifyInstance): void {
  defineStreamRoute(app, AUDIT_EXPORT_ENDPOINT, (ctx) => streamExport(app, ctx));
}

async function streamExport(app: FastifyInstance, ctx: StreamRouteContext<typeof AUDIT_EXPORT_ENDPOINT>): Promise<void> {
  const exporter = app.gateway.auditExport;
  if (exporter === undefined) throw new ApiError('SERVICE_UNAVAILABLE', EXPORT_NOT_SERVED_HERE);
  const { accountId, from, to, format } = ctx.query;
  const raw = ctx.reply.raw;
  const abort = new AbortController();
  raw.once('close', () => {
    if (!raw.writableFinished) abort.abort();
  });
  let started = false;
  const begin = () => {
    ctx.reply.hijack();
    started = true;
    raw.writeHead(200, {
      'content-type': AUDIT_EXPORT_CONTENT_TYPE[format],
      'content-disposition': `attachment; filename="${exportFilename(accountId, format, new Date())}"`,
      'cache-control': 'no-store',
      'x-request-id': ctx.requestId,
    });
    return raw;
  };
  try {
    await exporter({ accountId, from: from === undefined ? undefined : auditTimeOf(from), to: to === undefined ? undefined : auditTimeOf(to), format }, begin, abort.signal);
  } catch (error) {
    if (!started) throw error;
    ctx.logger.warn({ err: error }, 'audit export stopped before its end; the client got no manifest');
  } finally {
    if (started) raw.end();
  }
}
