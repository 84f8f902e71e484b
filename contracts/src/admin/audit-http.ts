import { z } from 'zod';
import { AccountId } from '../common/ids.js';
import type { EndpointContract } from '../common/routes.js';
import { IsoTimestamp, UtcDay } from '../common/time.js';

// The audit export (issue 16): an account's recorded events as a file a third party can check.

/** How an export is written: JSON Lines (one recorded event per line) or CSV (one row per event). */
export const AuditExportFormat = z
  .enum(['jsonl', 'csv'])
  .meta({ description: 'The file format: `jsonl` (one recorded event per line, then the manifest line) or `csv` (one row per event, then the manifest row).', example: 'jsonl' });
export type AuditExportFormat = z.infer<typeof AuditExportFormat>;

/** A bound of an audit time window: an ISO 8601 UTC time, or a UTC day (its 00:00). */
export const AuditTimeBound = z.union([IsoTimestamp, UtcDay], { error: 'must be an ISO 8601 UTC time (2026-11-21T10:15:30.000Z) or a UTC day (2026-11-21)' });
export type AuditTimeBound = z.infer<typeof AuditTimeBound>;

/** The instant a bound names: a day is its 00:00 UTC. */
export const auditTimeOf = (bound: AuditTimeBound): Date => new Date(bound);

/** GET /v1/admin/audit/export query. */
export const AuditExportQuery = z
  .object({
    accountId: AccountId.meta({ description: 'The account whose recorded events are exported.', example: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F' }),
    from: AuditTimeBound.optional().meta({ description: 'Only events recorded at or after this time (ISO 8601 UTC, or a UTC day for its 00:00).', example: '2026-11-01' }),
    to: AuditTimeBound.optional().meta({ description: 'Only events recorded before this time (ISO 8601 UTC, or a UTC day for its 00:00).', example: '2026-12-01T00:00:00.000Z' }),
    format: AuditExportFormat.optional().meta({ description: 'The file format, `jsonl` (default) or `csv`.', example: 'jsonl' }).transform((f) => f ?? 'jsonl'),
  })
  .strict();
export type AuditExportQuery = z.infer<typeof AuditExportQuery>;

/** The content type each format is served with. */
export const AUDIT_EXPORT_CONTENT_TYPE: Readonly<Record<AuditExportFormat, string>> = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8; header=present',
};

/** GET /v1/admin/audit/export: not in the JSON endpoint tables (its body is the export file, streamed). */
export const AUDIT_EXPORT_ENDPOINT = {
  method: 'GET',
  path: '/v1/admin/audit/export',
  status: 200,
  query: AuditExportQuery,
  response: z.unknown(),
} as const satisfies EndpointContract;
