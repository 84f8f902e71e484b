import { pathsOf } from '@switchboard/contracts';
import type { FastifyInstance } from 'fastify';
import { DOCS_CSP, renderDocsPage } from '../openapi/docs-page.js';
import { DOCS_PATH, OPENAPI_PATH, buildOpenApiDocument } from '../openapi/document.js';

/** `/v1/openapi.json` (also under `/api`) and the `/docs` page; no key needed for either. */
export function registerDocsRoutes(app: FastifyInstance): void {
  const document = buildOpenApiDocument();
  const page = renderDocsPage(document);
  for (const url of pathsOf(OPENAPI_PATH)) app.get(url, async () => document);
  app.get(DOCS_PATH, async (_request, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', DOCS_CSP).send(page),
  );
}
