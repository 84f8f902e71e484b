import { DOCS_PATH, OPENAPI_PATH } from './document.js';

type Json = Record<string, unknown>;

/**
 * The human docs page: plain HTML rendered on the server from the OpenAPI document, with inline
 * CSS and no script, font or image from anywhere. It works offline and behind any firewall, and
 * the Content-Security-Policy sent with it (`default-src 'none'`) makes sure it stays that way.
 */
export const DOCS_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const pretty = (value: unknown): string => `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;

/** Just enough Markdown for the description: paragraphs, **bold**, `code`, and the error table. */
function markdown(text: string): string {
  const inline = (line: string) =>
    escapeHtml(line)
      .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
      .replace(/`([^`]+)`/g, '<code>$1</code>');
  return text
    .split(/\n{2,}/)
    .map((block) => {
      const lines = block.split('\n');
      if (!lines.every((line) => line.startsWith('|'))) return `<p>${inline(lines.join(' '))}</p>`;
      const cells = (line: string) => line.split('|').slice(1, -1).map((cell) => cell.trim());
      const [head = '', , ...rows] = lines;
      const th = cells(head).map((c) => `<th>${inline(c)}</th>`).join('');
      const trs = rows.map((row) => `<tr>${cells(row).map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('');
      return `<table><thead><tr>${th}</tr></thead><tbody>${trs}</tbody></table>`;
    })
    .join('\n');
}

function section(title: string, body: string): string {
  return `<details><summary>${escapeHtml(title)}</summary>${body}</details>`;
}

function operationHtml(method: string, path: string, op: Json): string {
  const params = (op['parameters'] as Json[] | undefined) ?? [];
  const body = (op['requestBody'] as { content?: Record<string, { schema?: unknown; example?: unknown }> } | undefined)?.content?.['application/json'];
  const responses = Object.entries((op['responses'] as Record<string, Json>) ?? {});
  const parts = [
    `<h3 id="${escapeHtml(String(op['operationId']))}"><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code></h3>`,
    Array.isArray(op['security']) && op['security'].length === 0 ? '<p>No API key needed.</p>' : '',
    params.length ? `<p>Parameters: ${params.map((p) => `<code>${escapeHtml(String(p['name']))}</code> (${escapeHtml(String(p['in']))}${p['required'] ? ', required' : ''})${p['description'] ? ' ' + escapeHtml(String(p['description'])) : ''}`).join('; ')}</p>` : '',
    body ? section('Request body schema', pretty(body.schema)) + (body.example ? section('Request example', pretty(body.example)) : '') : '',
    `<p>Responses: ${responses.map(([status]) => `<b>${escapeHtml(status)}</b>`).join(', ')}</p>`,
  ];
  const success = responses.find(([status]) => status.startsWith('2'))?.[1] as { content?: Record<string, { schema?: unknown; example?: unknown }> } | undefined;
  const json = success?.content?.['application/json'];
  if (json) parts.push(section('Response schema', pretty(json.schema)), json.example ? section('Response example', pretty(json.example)) : '');
  return `<section>${parts.join('\n')}</section>`;
}

/** The page, from the document `buildOpenApiDocument()` returns. */
export function renderDocsPage(document: Json): string {
  const info = document['info'] as { title: string; description: string };
  const ops = Object.entries(document['paths'] as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => operationHtml(method, path, op)),
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(info.title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2em auto;padding:0 1em;color:#1d1d1f}
code,pre{font-family:ui-monospace,monospace;font-size:13px}pre{background:#f5f5f7;padding:.8em;overflow:auto}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left}
section{border-top:1px solid #ddd;padding:.5em 0}.m{display:inline-block;min-width:4.5em;color:#fff;border-radius:3px;padding:0 .4em;font-size:13px}
.get{background:#0a7d38}.post{background:#1f5fbf}.patch{background:#a86400}.delete{background:#b3261e}summary{cursor:pointer}
</style></head><body>
<h1>${escapeHtml(info.title)}</h1>
<p>Machine-readable: <a href="${OPENAPI_PATH}">${OPENAPI_PATH}</a> (OpenAPI 3.1). This page: <code>${DOCS_PATH}</code>.</p>
${markdown(info.description)}
<h2>Endpoints</h2>
${ops.join('\n')}
</body></html>`;
}
