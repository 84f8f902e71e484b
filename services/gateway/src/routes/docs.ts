import { createHash } from 'node:crypto';
import { pathsOf } from '@switchboard/contracts';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { DOCS_PATH, OPENAPI_PATH, buildOpenApiDocument } from '../openapi/document.js';

/**
 * What the docs page may load: its own script (and its inline start-up, by hash) and the API it
 * tries requests against, nothing from anywhere else (it works offline and behind any firewall).
 * Scalar styles itself inline.
 */
export const docsCsp = (inlineScriptHashes: readonly string[]) => [
  "default-src 'none'",
  ["script-src 'self'", ...inlineScriptHashes.map((hash) => `'sha256-${hash}'`)].join(' '),
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The SHA-256 (base64) of each inline script of an HTML page, for its CSP. */
export function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi)].map((m) => createHash('sha256').update(m[1]!).digest('base64'));
}

/** Response headers of the docs app that the page's answer keeps (not its framing: the outer server sets that). */
const FORWARDED_HEADERS = ['content-type', 'location', 'cache-control', 'etag', 'last-modified'];

/**
 * `/v1/openapi.json` (also under `/api`) and the interactive `/docs` page (Scalar, served from the
 * project's own dependencies: its script at `/docs/js/scalar.js`, no CDN, no web fonts), whose
 * "Test Request" calls this server with the key the reader enters. No key needed for either.
 * Scalar's plugin carries its ~9 MB script as a string in its module: it is loaded on the first
 * visit to /docs, into an app of its own that the docs routes ask, so a process nobody reads the
 * docs of never holds it.
 */
export async function registerDocsRoutes(app: FastifyInstance): Promise<void> {
  const document = buildOpenApiDocument();
  for (const url of pathsOf(OPENAPI_PATH)) app.get(url, async () => document);
  const title = String((document['info'] as { title: string }).title);
  let docsApp: Promise<FastifyInstance> | undefined;
  // In a context of its own, so that the CSP hook sees the docs routes only.
  await app.register(async (docs) => {
    docs.addHook('onSend', async (_request, reply, payload) => {
      reply.header('content-security-policy', docsCsp(typeof payload === 'string' ? inlineScriptHashes(payload) : []));
      return payload;
    });
    docs.get(`${DOCS_PATH}*`, async (request, reply) => {
      docsApp ??= scalarApp(title).catch((error: unknown) => {
        docsApp = undefined;
        throw error;
      });
      const answer = await (await docsApp).inject({ method: 'GET', url: request.url });
      // Not a docs path (`/docsx`, `/docs/nope`): the gateway's own 404, in the error envelope.
      if (answer.statusCode === 404) return reply.callNotFound();
      for (const name of FORWARDED_HEADERS) if (answer.headers[name] !== undefined) reply.header(name, answer.headers[name]);
      return reply.code(answer.statusCode).send(/^text\//.test(String(answer.headers['content-type'])) ? answer.body : answer.rawPayload);
    });
  });
}

/** The Scalar page and its script, under `/docs`, in an app that is never listened on. */
async function scalarApp(title: string): Promise<FastifyInstance> {
  const { default: scalarApiReference } = await import('@scalar/fastify-api-reference');
  const docs = Fastify();
  await docs.register(scalarApiReference, {
    routePrefix: DOCS_PATH,
    // The page reads the document from the gateway's own endpoint (one document, one place).
    configuration: { url: OPENAPI_PATH, withDefaultFonts: false, hideClientButton: true, telemetry: false, metaData: { title } },
  });
  await docs.ready();
  return docs;
}
