import { ApiError } from '@switchboard/contracts';
import type { InProcessBus } from '@switchboard/bus';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditExporter, AuditExportRequest } from '../src/index.js';
import { ADMIN_KEY, bearer, createAccount, quotaBus, startGateway, TRACE_ID } from './support.js';

// The route's own part: admin scope, query validation, headers, errors before and after the first
// byte. The export itself (the stores read, the rows and the manifest) is the embedded app's,
// tested end to end in apps/switchboard/test/audit-export.e2e.spec.ts.

let bus: InProcessBus;
let apps: FastifyInstance[] = [];

beforeEach(async () => {
  ({ bus } = await quotaBus());
});
afterEach(async () => {
  for (const app of apps) await app.close();
  apps = [];
  await bus.close();
});

async function gateway(auditExport?: AuditExporter): Promise<FastifyInstance> {
  const app = await startGateway(bus, auditExport ? { auditExport } : {});
  apps.push(app);
  return app;
}

const ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const exportUrl = (query: string) => `/v1/admin/audit/export?${query}`;

describe('GET /v1/admin/audit/export', () => {
  it('streams what the exporter writes as a download, with the query it was asked', async () => {
    const asked: AuditExportRequest[] = [];
    const app = await gateway(async (request, begin) => {
      asked.push(request);
      const out = begin();
      out.write('{"line":1}\n');
      out.write('{"manifest":{}}\n');
    });
    const response = await app.inject({ method: 'GET', url: exportUrl(`accountId=${ACCOUNT}&from=2026-11-01&to=2026-11-21T12:00:00.000Z&format=csv`), headers: bearer(ADMIN_KEY) });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(response.headers['content-disposition']).toMatch(new RegExp(`^attachment; filename="switchboard-audit-${ACCOUNT}-\\d{8}T\\d{6}Z\\.csv"$`));
    expect(response.headers['x-request-id']).toMatch(TRACE_ID);
    expect(response.body).toBe('{"line":1}\n{"manifest":{}}\n');
    expect(asked).toEqual([{ accountId: ACCOUNT, from: new Date('2026-11-01T00:00:00.000Z'), to: new Date('2026-11-21T12:00:00.000Z'), format: 'csv' }]);

    const jsonl = await app.inject({ method: 'GET', url: `/api${exportUrl(`accountId=${ACCOUNT}`)}`, headers: bearer(ADMIN_KEY) });
    expect([jsonl.statusCode, jsonl.headers['content-type']]).toEqual([200, 'application/x-ndjson; charset=utf-8']);
    expect(asked[1]).toEqual({ accountId: ACCOUNT, from: undefined, to: undefined, format: 'jsonl' });
  });

  it('refuses an account key (403), a bad format or time (400), and answers what the exporter refuses before the first byte', async () => {
    const app = await gateway(async (request, begin) => {
      if (request.accountId !== ACCOUNT) throw new ApiError('ACCOUNT_NOT_FOUND', `no account ${request.accountId} in the quota store`);
      begin().write('');
    });
    const { apiKey } = await createAccount(app);
    const forbidden = await app.inject({ method: 'GET', url: exportUrl(`accountId=${ACCOUNT}`), headers: bearer(apiKey) });
    expect([forbidden.statusCode, forbidden.json().error.code]).toEqual([403, 'FORBIDDEN']);

    const badFormat = await app.inject({ method: 'GET', url: exportUrl(`accountId=${ACCOUNT}&format=xml&from=yesterday`), headers: bearer(ADMIN_KEY) });
    expect(badFormat.statusCode).toBe(400);
    expect(badFormat.json().error).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(badFormat.json().error.details.map((d: { path: string }) => d.path).sort()).toEqual(['query.format', 'query.from']);

    const unknown = await app.inject({ method: 'GET', url: exportUrl('accountId=acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1G'), headers: bearer(ADMIN_KEY) });
    expect([unknown.statusCode, unknown.json().error.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    expect(unknown.headers['content-disposition']).toBeUndefined();
  });

  it('answers 503 with the way to export where the stores are, when this gateway runs apart from them', async () => {
    const app = await gateway();
    const response = await app.inject({ method: 'GET', url: exportUrl(`accountId=${ACCOUNT}`), headers: bearer(ADMIN_KEY) });
    expect(response.statusCode).toBe(503);
    expect(response.json().error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', message: expect.stringContaining('npx switchboard audit export') });
  });

  it('ends the body without more when the export fails after the first byte (no manifest: an incomplete export)', async () => {
    const app = await gateway(async (_request, begin) => {
      begin().write('{"line":1}\n');
      throw new Error('store gone');
    });
    const response = await app.inject({ method: 'GET', url: exportUrl(`accountId=${ACCOUNT}`), headers: bearer(ADMIN_KEY) });
    expect([response.statusCode, response.body]).toEqual([200, '{"line":1}\n']);
  });

  it('is documented: admin tag, its query, both file types, Content-Disposition and its errors', async () => {
    const app = await gateway();
    const operation = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json().paths['/v1/admin/audit/export'].get;
    expect(operation.tags).toEqual(['admin']);
    expect(operation.parameters.map((p: { name: string; required: boolean }) => `${p.name}:${p.required}`)).toEqual(['accountId:true', 'from:false', 'to:false', 'format:false']);
    expect(Object.keys(operation.responses['200'].content)).toEqual(['application/x-ndjson', 'text/csv']);
    expect(operation.responses['200'].headers['Content-Disposition']).toBeDefined();
    for (const status of ['400', '401', '403', '404', '503']) expect(operation.responses[status], status).toBeDefined();
  });
});
