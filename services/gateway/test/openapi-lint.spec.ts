import { loadConfig, lintFromString } from '@redocly/openapi-core';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../src/openapi/document.js';

const CONFIG_PATH = fileURLToPath(new URL('../redocly.yaml', import.meta.url));

describe('the OpenAPI document under Redocly lint (redocly.yaml)', () => {
  it('has no problem at all: recommended-strict plus descriptions and examples on every field, parameter and operation', async () => {
    const config = await loadConfig({ configPath: CONFIG_PATH });
    const problems = await lintFromString({ source: JSON.stringify(buildOpenApiDocument()), absoluteRef: '/openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('catches what it is there for: a field without a description, a status without a response', async () => {
    const config = await loadConfig({ configPath: CONFIG_PATH });
    const document = buildOpenApiDocument() as { paths: Record<string, Record<string, { description?: string; responses: object }>> };
    const text = document.paths['/v1/messages/text']!['post']!;
    delete text.description;
    text.responses = { '201': (text.responses as Record<string, unknown>)['201'] };
    const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: '/openapi.json', config });
    expect(new Set(problems.map((p) => p.ruleId))).toEqual(new Set(['operation-description', 'operation-4xx-response']));
  });
});
