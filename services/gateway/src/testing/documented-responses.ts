import { buildOpenApiDocument } from '../openapi/document.js';

/** One response a test saw: what was asked, and the status and error code that came back. */
export interface ObservedResponse {
  readonly method: string;
  /** As requested: `/api` prefix and query string allowed. */
  readonly url: string;
  readonly status: number;
  readonly code?: string | undefined;
}

type Json = Record<string, unknown>;
interface Operation {
  responses: Record<string, Json>;
}

const PARAM = /\{[^}]+\}/g;

/** The document's path templates as matchers, literal ones first (`/v1/messages/text` before `{messageId}`). */
function matchers(document: Json): { template: string; pattern: RegExp }[] {
  return Object.keys(document['paths'] as Json)
    .map((template) => ({ template, pattern: new RegExp(`^${template.replace(PARAM, '[^/]+')}$`), params: (template.match(PARAM) ?? []).length }))
    .sort((a, b) => a.params - b.params)
    .map(({ template, pattern }) => ({ template, pattern }));
}

/** The error codes a documented response names: its examples' keys, or a shared response's one code. */
function codesOf(response: Json, document: Json): string[] {
  const ref = response['$ref'];
  const resolved = typeof ref === 'string' ? ((document['components'] as Json)['responses'] as Json)[ref.split('/').pop()!] as Json : response;
  const json = (resolved['content'] as Json | undefined)?.['application/json'] as Json | undefined;
  if (json?.['examples']) return Object.keys(json['examples'] as Json);
  const code = ((json?.['example'] as Json | undefined)?.['error'] as Json | undefined)?.['code'];
  return typeof code === 'string' ? [code] : [];
}

/**
 * The observed responses the OpenAPI document does not list for the operation they hit: a status
 * missing from its responses, or an error code missing from that status. A request that hit no
 * operation (an unknown route, a test's own route) is not judged.
 */
export function undocumentedResponses(observed: readonly ObservedResponse[], document: Json = buildOpenApiDocument()): string[] {
  const paths = document['paths'] as Record<string, Record<string, Operation>>;
  const templates = matchers(document);
  const problems = new Set<string>();
  for (const { method, url, status, code } of observed) {
    const path = url.split('?')[0]!.replace(/^\/api(?=\/v1\/)/, '');
    const template = templates.find((t) => t.pattern.test(path))?.template;
    const operation = template ? paths[template]?.[method.toLowerCase()] : undefined;
    if (!template || !operation) continue;
    const response = operation.responses[String(status)];
    if (!response) problems.add(`${method} ${template} answered ${status}${code ? ` ${code}` : ''}, not documented`);
    else if (status >= 400 && code && !codesOf(response, document).includes(code)) problems.add(`${method} ${template} answered ${status} ${code}, not documented for ${status}`);
  }
  return [...problems];
}
