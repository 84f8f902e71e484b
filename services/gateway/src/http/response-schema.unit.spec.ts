import { MESSAGE_ENDPOINTS, SESSION_ENDPOINTS, successEnvelope } from '@switchboard/contracts';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { serializationSchemaOf } from './response-schema.js';

describe('the schema a success body is serialised by', () => {
  it('keeps the shape (types, required fields, nullable scalars) and drops what only validates', () => {
    const schema = serializationSchemaOf(successEnvelope(z.object({ id: z.string().regex(/^x_/), at: z.string().nullable(), n: z.number().int().min(0) })));
    expect(schema).toEqual({
      type: 'object',
      properties: {
        success: { type: 'boolean', const: true },
        data: { type: 'object', properties: { id: { type: 'string' }, at: { type: ['string', 'null'] }, n: { type: 'integer' } }, required: ['id', 'at', 'n'] },
      },
      required: ['success', 'data'],
    });
  });

  it('stays on zod where the body a handler returns is not yet what is sent (a default, a transform)', () => {
    expect(serializationSchemaOf(z.object({ n: z.number().default(1) }))).toBeNull();
    expect(serializationSchemaOf(z.object({ n: z.string().transform((s) => s.length) }))).toBeNull();
  });

  it('stays on zod for bytes (a refinement says nothing about the shape)', () => {
    expect(serializationSchemaOf(MESSAGE_ENDPOINTS.media.response)).toBeNull();
  });

  it('compiles the read endpoints', () => {
    for (const endpoint of [MESSAGE_ENDPOINTS.get, SESSION_ENDPOINTS.get, SESSION_ENDPOINTS.list]) expect(serializationSchemaOf(endpoint.response)).not.toBeNull();
  });
});
