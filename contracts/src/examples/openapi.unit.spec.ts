import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ADMIN_ENDPOINTS } from '../admin/http.js';
import { ErrorEnvelope } from '../errors/envelope.js';
import { HEALTH_ENDPOINTS } from '../health/http.js';
import { MESSAGE_ENDPOINTS } from '../messages/history-http.js';
import { SESSION_ENDPOINTS } from '../sessions/http.js';

const endpoints = Object.entries({ ...SESSION_ENDPOINTS, ...MESSAGE_ENDPOINTS, ...ADMIN_ENDPOINTS, ...HEALTH_ENDPOINTS });

// The gateway generates /v1/openapi.json from these schemas; every one must convert.
describe('schemas convert to JSON Schema for the OpenAPI document', () => {
  it.each(endpoints)('%s', (_name, endpoint) => {
    for (const key of ['body', 'query', 'params'] as const) {
      const schema = (endpoint as Partial<Record<typeof key, z.ZodType>>)[key];
      if (schema) expect(() => z.toJSONSchema(schema, { io: 'input' })).not.toThrow();
    }
    expect(() => z.toJSONSchema(endpoint.response, { io: 'output' })).not.toThrow();
  });

  it('documents strict bodies as closed objects and the limits as constraints', () => {
    const json = z.toJSONSchema(MESSAGE_ENDPOINTS.sendButtons.body, { io: 'input' }) as Record<string, unknown>;
    expect(json).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['sessionId', 'to', 'text', 'buttons'],
      properties: { buttons: { minItems: 1, maxItems: 3 }, footer: { maxLength: 60 }, to: { pattern: '^[1-9][0-9]{6,14}$' } },
    });
  });

  it('converts the error envelope', () => {
    expect(z.toJSONSchema(ErrorEnvelope)).toMatchObject({ properties: { success: { const: false } } });
  });
});
