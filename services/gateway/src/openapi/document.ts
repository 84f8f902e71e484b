import { ADMIN_ENDPOINTS, ErrorEnvelope, HEALTH_ENDPOINTS, HTTP_EXAMPLES, MESSAGE_ENDPOINTS, PublicEvent, PublicEventId, SESSION_ENDPOINTS, WEBHOOK_ENDPOINTS } from '@switchboard/contracts';
import type { EndpointContract } from '@switchboard/contracts';
import { maxHeaderSize } from 'node:http';
import { z } from 'zod';
import { BODY_LIMIT_BYTES } from '../http/body.js';
import { EVENT_STREAM_ENDPOINT, HEARTBEAT_MS, sseFrame } from '../routes/event-stream.js';
import { ENDPOINT_EXAMPLES, example } from './examples.js';
import { apiDescription } from './info.js';

type Json = Record<string, unknown>;

/** The endpoint tables the document is generated from, by tag. */
export const ENDPOINT_TABLES: Readonly<Record<string, Readonly<Record<string, EndpointContract>>>> = {
  sessions: SESSION_ENDPOINTS,
  messages: MESSAGE_ENDPOINTS,
  webhooks: WEBHOOK_ENDPOINTS,
  admin: ADMIN_ENDPOINTS,
  health: HEALTH_ENDPOINTS,
};

/** Paths of the generated document itself and of the docs page (public, not in the tables). */
export const OPENAPI_PATH = '/v1/openapi.json';
export const DOCS_PATH = '/docs';

/** `/v1/sessions/:sessionId` -> `/v1/sessions/{sessionId}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
  return rest;
}

function parameters(schema: z.ZodType | undefined, where: 'path' | 'query'): Json[] {
  if (schema === undefined) return [];
  const object = jsonSchema(schema, 'input') as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    name,
    in: where,
    required: where === 'path' || (object.required ?? []).includes(name),
    ...(typeof property['description'] === 'string' ? { description: property['description'] } : {}),
    schema: property,
  }));
}

const errorRef = (name: string): Json => ({ $ref: `#/components/responses/${name}` });

/** Failures each endpoint can answer, by what it takes; the codes are in the description table. */
function errorResponses(endpoint: EndpointContract, isPublic: boolean): Json {
  // Any request can be too slow or carry too large a head: node refuses those before routing.
  const responses: Json = { '408': errorRef('RequestTimeout'), '431': errorRef('HeadersTooLarge'), '500': errorRef('InternalError') };
  if (isPublic) return responses;
  Object.assign(responses, { '400': errorRef('BadRequest'), '401': errorRef('Unauthorized'), '403': errorRef('Forbidden') });
  if (endpoint.params) responses['404'] = errorRef('NotFound');
  if (endpoint.body) Object.assign(responses, { '413': errorRef('PayloadTooLarge'), '415': errorRef('UnsupportedMediaType') });
  Object.assign(responses, { '503': errorRef('ServiceUnavailable'), '504': errorRef('UpstreamTimeout') });
  return responses;
}

function operation(tag: string, name: string, endpoint: EndpointContract): Json {
  const isPublic = tag === 'health';
  const examples = ENDPOINT_EXAMPLES[`${tag}.${name}`];
  const success: Json = {
    description: endpoint.status === 201 ? 'Created' : 'OK',
    content: { 'application/json': { schema: jsonSchema(endpoint.response, 'output'), example: example(examples?.response) } },
  };
  const op: Json = {
    operationId: `${tag}.${name}`,
    tags: [tag],
    summary: `${endpoint.method} ${openApiPath(endpoint.path)}`,
    parameters: [...parameters(endpoint.params, 'path'), ...parameters(endpoint.query, 'query')],
    responses: { [String(endpoint.status)]: success, ...errorResponses(endpoint, isPublic) },
  };
  if (isPublic) op['security'] = [];
  if (endpoint.body) {
    op['requestBody'] = {
      // An absent body counts as `{}`: the body is required exactly when `{}` is not valid.
      required: !endpoint.body.safeParse({}).success,
      content: { 'application/json': { schema: jsonSchema(endpoint.body, 'input'), example: example(examples?.body) } },
    };
  }
  return op;
}

/** One frame of the live stream, as the example of its 200 response. */
const EXAMPLE_FRAME = sseFrame(
  PublicEvent.parse({
  id: 'evt_01JD8Z7A1B2C3D4E5F6G7H8J9K',
  type: 'message.status',
  timestamp: '2026-01-01T12:00:01.000Z',
  data: { messageId: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K', sessionId: 'ses_01JD8Z5K7M9N1P3Q5R7S9T1V3W', status: 'delivered', timestamp: '2026-01-01T12:00:01.000Z', error: null },
  }),
);

/** GET /v1/events answers a stream of SSE frames, not JSON: its body is described in words. */
function eventStreamOperation(): Json {
  const endpoint = EVENT_STREAM_ENDPOINT;
  const lastEventId = {
    name: 'Last-Event-ID',
    in: 'header',
    required: false,
    description: 'Resume right after this event (the `id:` of the last frame received): nothing in between is missed, for at least 24 h of history. Without it the stream starts from now.',
    schema: jsonSchema(PublicEventId, 'input'),
  };
  return {
    operationId: 'events.stream',
    tags: ['events'],
    summary: `${endpoint.method} ${openApiPath(endpoint.path)}`,
    description: 'The live stream of the account\'s events (the webhook catalogue), as Server-Sent Events. Several clients may listen at once.',
    parameters: [...parameters(endpoint.query, 'query'), lastEventId],
    responses: {
      [String(endpoint.status)]: {
        description:
          `A \`text/event-stream\` that stays open. Each event is one frame: \`id:\` the event id, \`event:\` its type, \`data:\` the event JSON on one line ` +
          `(schema \`#/components/schemas/PublicEvent\`), then a blank line. A comment line (\`: heartbeat\`) comes every ${HEARTBEAT_MS / 1000} s ` +
          'so proxies keep a quiet stream open. Errors before the stream starts are JSON envelopes as elsewhere.',
        content: { 'text/event-stream': { schema: { type: 'string' }, example: EXAMPLE_FRAME } },
      },
      ...errorResponses(endpoint, false),
    },
  };
}

function errorResponse(description: string, exampleBody?: unknown): Json {
  return {
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' }, ...(exampleBody ? { example: exampleBody } : {}) } },
  };
}

function components(): Json {
  return {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer sbk_...`' },
    },
    schemas: { ErrorEnvelope: jsonSchema(ErrorEnvelope, 'output'), PublicEvent: jsonSchema(PublicEvent, 'output') },
    responses: {
      BadRequest: errorResponse('INVALID_JSON or VALIDATION_ERROR (every problem in details)', HTTP_EXAMPLES.validationErrorResponse),
      Unauthorized: errorResponse('UNAUTHORIZED: missing, non-Bearer, unknown or revoked key (WWW-Authenticate: Bearer)'),
      Forbidden: errorResponse('FORBIDDEN: the key lacks the scope of this endpoint'),
      NotFound: errorResponse('The resource does not exist or belongs to another account'),
      PayloadTooLarge: errorResponse(`PAYLOAD_TOO_LARGE: body over ${BODY_LIMIT_BYTES / 1024 / 1024} MiB; details {limit, size} in bytes (size when Content-Length declared it)`),
      UnsupportedMediaType: errorResponse('UNSUPPORTED_MEDIA_TYPE: body is not application/json'),
      RequestTimeout: errorResponse(
        'REQUEST_TIMEOUT: the request did not arrive within the whole-request timeout, or its body arrived below the body-rate floor; the connection is closed',
      ),
      HeadersTooLarge: errorResponse(`HEADERS_TOO_LARGE: request line and headers over ${maxHeaderSize / 1024} KiB together; the connection is closed`),
      InternalError: errorResponse('INTERNAL_ERROR: a bug, logged with the request id'),
      ServiceUnavailable: errorResponse('SERVICE_UNAVAILABLE: a service or the bus is unreachable (Retry-After)'),
      UpstreamTimeout: errorResponse('UPSTREAM_TIMEOUT: a service did not answer in time'),
    },
  };
}

function paths(): Json {
  const result: Record<string, Json> = {};
  for (const [tag, table] of Object.entries(ENDPOINT_TABLES)) {
    for (const [name, endpoint] of Object.entries(table)) {
      const path = openApiPath(endpoint.path);
      result[path] = { ...result[path], [endpoint.method.toLowerCase()]: operation(tag, name, endpoint) };
    }
  }
  result[openApiPath(EVENT_STREAM_ENDPOINT.path)] = { [EVENT_STREAM_ENDPOINT.method.toLowerCase()]: eventStreamOperation() };
  return result;
}

/**
 * OpenAPI 3.1 generated from the contracts' endpoint tables, the same zod schemas that validate
 * requests. Each path is listed once in its `/v1` form; the description says `/api/v1` is the
 * same API. Built once per process (the tables are static).
 */
export function buildOpenApiDocument(): Json {
  return {
    openapi: '3.1.0',
    info: { title: 'Switchboard API', version: '1.0.0', description: apiDescription() },
    servers: [{ url: '/', description: 'This gateway' }],
    security: [{ bearerAuth: [] }],
    tags: [
      { name: 'sessions', description: 'Linked chat-network devices (scan a QR code to connect)' },
      { name: 'messages', description: 'Send messages through a connected session and read their status' },
      { name: 'webhooks', description: 'Endpoints that receive the account\'s events (Standard Webhooks signatures)' },
      { name: 'events', description: 'The live stream of the account\'s events (Server-Sent Events)' },
      { name: 'admin', description: 'Accounts, plans and API keys (admin scope)' },
      { name: 'health', description: 'Probes (no key)' },
    ],
    paths: paths(),
    components: components(),
  };
}
