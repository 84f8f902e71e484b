import { ADMIN_ENDPOINTS, AUDIT_EXPORT_ENDPOINT, ERROR_DEFAULT_MESSAGE, ERROR_HTTP_STATUS, ErrorEnvelope, HEALTH_ENDPOINTS, HTTP_EXAMPLES, IdempotencyKey, MESSAGE_ENDPOINTS, PublicEvent, PublicEventId, SESSION_ENDPOINTS, WEBHOOK_ENDPOINTS } from '@switchboard/contracts';
import type { EndpointContract, ErrorCode } from '@switchboard/contracts';
import { maxHeaderSize } from 'node:http';
import { z } from 'zod';
import { BODY_LIMIT_BYTES } from '../http/body.js';
import { RETRY_AFTER_UNAVAILABLE_SECONDS } from '../http/errors.js';
import { UNLIMITED_RATE_LIMIT } from '../routes/messages.js';
import { EVENT_STREAM_ENDPOINT, HEARTBEAT_MS, sseFrame } from '../routes/event-stream.js';
import { exportFilename } from '../routes/audit.js';
import { ENDPOINT_EXAMPLES, example } from './examples.js';
import { apiDescription } from './info.js';
import { OPERATION_DOCS } from './operations.js';
import type { OperationDoc, OperationName } from './operations.js';

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

const responseRef = (name: string): Json => ({ $ref: `#/components/responses/${name}` });
const headerRef = (name: string): Json => ({ $ref: `#/components/headers/${name}` });

/** Codes whose response is the same on every operation, kept once under components. */
const SHARED_ERROR_RESPONSES: Partial<Record<ErrorCode, string>> = {
  UNAUTHORIZED: 'Unauthorized',
  FORBIDDEN: 'Forbidden',
  REQUEST_TIMEOUT: 'RequestTimeout',
  PAYLOAD_TOO_LARGE: 'PayloadTooLarge',
  UNSUPPORTED_MEDIA_TYPE: 'UnsupportedMediaType',
  HEADERS_TOO_LARGE: 'HeadersTooLarge',
  INTERNAL_ERROR: 'InternalError',
  SERVICE_UNAVAILABLE: 'ServiceUnavailable',
  UPSTREAM_TIMEOUT: 'UpstreamTimeout',
};

/** Every error code an operation can answer: what its shape brings, then its own. */
export function errorCodesOf(endpoint: EndpointContract, own: readonly ErrorCode[], isPublic: boolean): ErrorCode[] {
  // Any request can be too slow or carry too large a head: node refuses those before routing.
  const codes: ErrorCode[] = ['REQUEST_TIMEOUT', 'HEADERS_TOO_LARGE', 'INTERNAL_ERROR'];
  if (!isPublic) codes.push('VALIDATION_ERROR', 'UNAUTHORIZED', 'FORBIDDEN', 'SERVICE_UNAVAILABLE', 'UPSTREAM_TIMEOUT');
  if (endpoint.body) codes.push('INVALID_JSON', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  return [...new Set([...codes, ...own])];
}

const EXAMPLE_REQUEST_ID = '4bf92f3577b34da6a3ce929d0e0e4736';

function errorExample(code: ErrorCode): unknown {
  if (code === 'VALIDATION_ERROR') return HTTP_EXAMPLES.validationErrorResponse;
  if (code === 'DAILY_MESSAGE_LIMIT_REACHED') return HTTP_EXAMPLES.dailyLimitErrorResponse;
  return { success: false, error: { code, message: ERROR_DEFAULT_MESSAGE[code], requestId: EXAMPLE_REQUEST_ID } };
}

/** Headers an error response carries besides `X-Request-Id` (see errorHeaders in http/errors.ts). */
function errorHeaders(codes: readonly ErrorCode[]): Json {
  const headers: Json = { 'X-Request-Id': headerRef('RequestId') };
  if (codes.includes('UNAUTHORIZED')) headers['WWW-Authenticate'] = headerRef('WwwAuthenticate');
  if (codes.includes('SERVICE_UNAVAILABLE') || codes.includes('DAILY_MESSAGE_LIMIT_REACHED')) headers['Retry-After'] = headerRef('RetryAfter');
  if (codes.includes('DAILY_MESSAGE_LIMIT_REACHED')) Object.assign(headers, rateLimitHeaders());
  return headers;
}

const rateLimitHeaders = (): Json => ({
  'RateLimit-Limit': headerRef('RateLimitLimit'),
  'RateLimit-Remaining': headerRef('RateLimitRemaining'),
  'RateLimit-Reset': headerRef('RateLimitReset'),
});

/** One error response for the codes that share a status: each code and what it means. */
function errorResponse(codes: readonly ErrorCode[]): Json {
  const description = codes.map((code) => `\`${code}\`: ${ERROR_DEFAULT_MESSAGE[code]}`).join('\n\n');
  const examples = Object.fromEntries(codes.map((code) => [code, { value: errorExample(code) }]));
  return {
    description,
    headers: errorHeaders(codes),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' }, examples } },
  };
}

/** Error responses by status: a shared component where one code has the status alone. */
function errorResponses(codes: readonly ErrorCode[]): Json {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_HTTP_STATUS[code], [...(byStatus.get(ERROR_HTTP_STATUS[code]) ?? []), code]);
  const responses: Json = {};
  for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
    const shared = group.length === 1 ? SHARED_ERROR_RESPONSES[group[0]!] : undefined;
    responses[String(status)] = shared ? responseRef(shared) : errorResponse(group);
  }
  return responses;
}

/** A send's 201 example as the 202 it would be past the deadline. */
function pendingExample(sent: unknown): unknown {
  const { data, ...rest } = sent as { data: object };
  return { ...rest, data: { ...data, status: 'pending' } };
}

/** The success responses: 201/200, and a send's 202 `pending`. */
function successResponses(name: OperationName, endpoint: EndpointContract, doc: OperationDoc): Json {
  const examples = ENDPOINT_EXAMPLES[name];
  const headers: Json = { 'X-Request-Id': headerRef('RequestId') };
  if (doc.send) Object.assign(headers, rateLimitHeaders());
  if (doc.idempotent) headers['Idempotent-Replayed'] = headerRef('IdempotentReplayed');
  const content = doc.binary
    ? { '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream', description: 'The media bytes, served with their own Content-Type.' } } }
    : { 'application/json': { schema: jsonSchema(endpoint.response, 'output'), example: example(examples?.response) } };
  const responses: Json = { [String(endpoint.status)]: { description: doc.send ? 'Sent: the chat network acknowledged the message.' : endpoint.status === 201 ? 'Created' : 'OK', headers, content } };
  if (doc.send) {
    responses['202'] = {
      description: 'Accepted, `pending`: the network did not acknowledge within the send deadline; the message is still being sent.',
      headers,
      content: { 'application/json': { schema: jsonSchema(endpoint.response, 'output'), example: pendingExample(example(examples?.response)) } },
    };
  }
  return responses;
}

function operation(tag: string, name: string, endpoint: EndpointContract): Json {
  const isPublic = tag === 'health';
  const key = `${tag}.${name}` as OperationName;
  const doc = OPERATION_DOCS[key];
  const examples = ENDPOINT_EXAMPLES[key];
  const headerParameters = doc.idempotent ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : [];
  const op: Json = {
    operationId: key,
    tags: [tag],
    summary: doc.summary,
    description: doc.description,
    parameters: [...parameters(endpoint.params, 'path'), ...parameters(endpoint.query, 'query'), ...headerParameters],
    responses: { ...successResponses(key, endpoint, doc), ...errorResponses(errorCodesOf(endpoint, doc.errors, isPublic)) },
  };
  if (key === 'health.readyz') op['responses'] = { ...(op['responses'] as Json), '503': notReadyResponse(endpoint) };
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

/** `/readyz` answers 503 with the same body when a check fails: orchestrators read the status. */
function notReadyResponse(endpoint: EndpointContract): Json {
  return {
    description: 'Not ready: at least one check failed (`ok: false`, with its `detail`).',
    headers: { 'X-Request-Id': headerRef('RequestId') },
    content: {
      'application/json': {
        schema: jsonSchema(endpoint.response, 'output'),
        example: { status: 'not_ready', checks: { bus: { ok: false, detail: 'the bus is unreachable' }, eventStore: { ok: true }, readModels: { ok: true } } },
      },
    },
  };
}

/** One event: the example of a webhook delivery and, as a frame, of the live stream's 200. */
const EXAMPLE_EVENT = PublicEvent.parse({
  id: 'evt_01JD8Z7A1B2C3D4E5F6G7H8J9K',
  type: 'message.status',
  timestamp: '2026-01-01T12:00:01.000Z',
  data: { messageId: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K', sessionId: 'ses_01JD8Z5K7M9N1P3Q5R7S9T1V3W', status: 'delivered', timestamp: '2026-01-01T12:00:01.000Z', error: null },
});
const EXAMPLE_FRAME = sseFrame(EXAMPLE_EVENT);

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
    summary: 'Stream the account\'s events',
    description: 'The live stream of the account\'s events (the webhook catalogue), as Server-Sent Events. Several clients may listen at once.',
    parameters: [...parameters(endpoint.query, 'query'), lastEventId],
    responses: {
      [String(endpoint.status)]: {
        description:
          `A \`text/event-stream\` that stays open. Each event is one frame: \`id:\` the event id, \`event:\` its type, \`data:\` the event JSON on one line ` +
          `(schema \`#/components/schemas/PublicEvent\`), then a blank line. A comment line (\`: heartbeat\`) comes every ${HEARTBEAT_MS / 1000} s ` +
          'so proxies keep a quiet stream open. Errors before the stream starts are JSON envelopes as elsewhere.',
        headers: { 'X-Request-Id': headerRef('RequestId') },
        content: { 'text/event-stream': { schema: { type: 'string', description: 'Server-Sent Events frames.' }, example: EXAMPLE_FRAME } },
      },
      ...errorResponses(errorCodesOf(endpoint, [], false)),
    },
  };
}

const EXAMPLE_ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const EXAMPLE_HASH = 'e8dba566068254707754409d5751da9909650a134e2908cf459f4af97cf288d0';
const EXAMPLE_EXPORTED_EVENT = {
  service: 'quota', stream: `account-${EXAMPLE_ACCOUNT}`, revision: 0, position: 1, id: 'b112d8b9-2aad-44d8-93f5-4cd732f6c23a', type: 'AccountOpened',
  recordedAt: '2026-11-21T10:15:30.000Z', data: { accountId: EXAMPLE_ACCOUNT, name: 'Acme support', plan: 'basic', openedAt: '2026-11-21T10:15:30.000Z' },
  metadata: { accountId: EXAMPLE_ACCOUNT, correlationId: EXAMPLE_REQUEST_ID, causationId: EXAMPLE_REQUEST_ID, occurredAt: '2026-11-21T10:15:30.000Z', schemaVersion: 1, prevHash: '0'.repeat(64), hash: EXAMPLE_HASH },
};
const EXAMPLE_MANIFEST = {
  format: 'switchboard-audit-export', version: 1, accountId: EXAMPLE_ACCOUNT, from: null, to: null, exportedAt: '2026-11-21T12:00:00.000Z', events: 1, streams: 1,
  stores: [{ service: 'quota', events: 1, firstPosition: 1, lastPosition: 1 }],
  heads: { [`account-${EXAMPLE_ACCOUNT}`]: { service: 'quota', events: 1, firstRevision: 0, lastRevision: 0, startHash: '0'.repeat(64), hash: EXAMPLE_HASH } },
};

/** GET /v1/admin/audit/export answers a file (JSON Lines or CSV), not JSON: its body is described in words. */
function auditExportOperation(): Json {
  const endpoint = AUDIT_EXPORT_ENDPOINT;
  const fileBody = (description: string, example: string): Json => ({ schema: { type: 'string', description }, example });
  return {
    operationId: 'admin.auditExport',
    tags: ['admin'],
    summary: 'Export an account\'s recorded events',
    description:
      'Every event recorded for the account (sessions, messages with their contents, receipts, keys, plan changes, webhooks), optionally of ' +
      'a time window, in log order, as a file download streamed while the event stores are read; the last line (or CSV row) is a manifest ' +
      'with the counts, the first and last log position per store and each stream\'s chain head, so that `switchboard audit verify --file` ' +
      'can prove the file whole later. Served where the event stores can be opened (the embedded mode, `npm start`); a gateway running ' +
      'as its own process answers 503 `SERVICE_UNAVAILABLE` and the export is made with `npx switchboard audit export` instead. A failure ' +
      'after the first byte ends the file without its manifest.',
    parameters: parameters(endpoint.query, 'query'),
    responses: {
      [String(endpoint.status)]: {
        description: 'The export file (`Content-Disposition: attachment`), in the format asked for.',
        headers: {
          'X-Request-Id': headerRef('RequestId'),
          'Content-Disposition': header('`attachment` with the file name: the account and the time of the export.', {
            type: 'string',
            example: `attachment; filename="${exportFilename(EXAMPLE_ACCOUNT, 'jsonl', new Date('2026-11-21T12:00:00.000Z'))}"`,
          }),
        },
        content: {
          'application/x-ndjson': fileBody(
            '`format=jsonl`: one recorded event per line (store, stream, revision, position, id, type, recordedAt, data, metadata with `prevHash` and `hash`), then `{"manifest": …}`.',
            `${JSON.stringify(EXAMPLE_EXPORTED_EVENT)}\n${JSON.stringify({ manifest: EXAMPLE_MANIFEST })}\n`,
          ),
          'text/csv': fileBody(
            '`format=csv`: a header row, one row per event (`record` = `event`, data and metadata as JSON), then a row whose `record` is `manifest` with the manifest as JSON in `data`.',
            'record,service,stream,revision,position,id,type,recordedAt,correlationId,causationId,prevHash,hash,data,metadata\n',
          ),
        },
      },
      ...errorResponses(errorCodesOf(endpoint, ['ACCOUNT_NOT_FOUND'], false)),
    },
  };
}

/** A response shared by every operation that can answer its one code. */
function sharedErrorResponse(code: ErrorCode, description: string): Json {
  return {
    description: `\`${code}\`: ${description}`,
    headers: errorHeaders([code]),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' }, example: errorExample(code) } },
  };
}

const header = (description: string, schema: Json): Json => ({ description, schema });

function components(): Json {
  return {
    securitySchemes: {
      bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer sbk_...`' },
    },
    schemas: { ErrorEnvelope: jsonSchema(ErrorEnvelope, 'output'), PublicEvent: jsonSchema(PublicEvent, 'output') },
    parameters: {
      IdempotencyKey: {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description:
          'The same key with the same body within 24 h answers for the first request and does nothing again (`Idempotent-Replayed: true`); ' +
          'with another body, 409 `IDEMPOTENCY_KEY_REUSED`. Keys are per account.',
        schema: jsonSchema(IdempotencyKey, 'input'),
      },
    },
    headers: {
      RequestId: header('The W3C trace id of the request (32 hex characters); error bodies repeat it as `requestId`.', { type: 'string', pattern: '^[0-9a-f]{32}$', example: EXAMPLE_REQUEST_ID }),
      WwwAuthenticate: header('The scheme to authenticate with.', { type: 'string', example: 'Bearer realm="switchboard"' }),
      RetryAfter: header(
        `Whole seconds to wait before retrying: ${RETRY_AFTER_UNAVAILABLE_SECONDS} on 503, the seconds until 00:00 UTC on 429 \`DAILY_MESSAGE_LIMIT_REACHED\`.`,
        { type: 'integer', minimum: 0, example: RETRY_AFTER_UNAVAILABLE_SECONDS },
      ),
      RateLimitLimit: header(`The plan's messages per UTC day (${UNLIMITED_RATE_LIMIT} on unlimited plans).`, { type: 'integer', minimum: 0, example: 1000 }),
      RateLimitRemaining: header(`Messages the account may still send today (${UNLIMITED_RATE_LIMIT} on unlimited plans).`, { type: 'integer', minimum: 0, example: 958 }),
      RateLimitReset: header('Seconds until the daily count resets at 00:00 UTC.', { type: 'integer', minimum: 0, example: 36_000 }),
      IdempotentReplayed: header('`true` when this is the stored answer to an earlier request with the same `Idempotency-Key` (nothing was done again).', {
        type: 'string',
        enum: ['true'],
        example: 'true',
      }),
    },
    responses: {
      Unauthorized: sharedErrorResponse('UNAUTHORIZED', 'missing, non-Bearer, unknown or revoked key (`WWW-Authenticate: Bearer`).'),
      Forbidden: sharedErrorResponse('FORBIDDEN', 'the key lacks the scope of this endpoint.'),
      PayloadTooLarge: sharedErrorResponse(
        'PAYLOAD_TOO_LARGE',
        `body over ${BODY_LIMIT_BYTES / 1024 / 1024} MiB; \`details: {limit, size}\` in bytes (size when Content-Length declared it). Send large media by URL.`,
      ),
      UnsupportedMediaType: sharedErrorResponse('UNSUPPORTED_MEDIA_TYPE', 'the body is not `application/json`.'),
      RequestTimeout: sharedErrorResponse(
        'REQUEST_TIMEOUT',
        'the request did not arrive within the whole-request timeout, or its body arrived below the body-rate floor; the connection is closed.',
      ),
      HeadersTooLarge: sharedErrorResponse('HEADERS_TOO_LARGE', `request line and headers over ${maxHeaderSize / 1024} KiB together; the connection is closed.`),
      InternalError: sharedErrorResponse('INTERNAL_ERROR', 'a bug, logged with the request id.'),
      ServiceUnavailable: sharedErrorResponse('SERVICE_UNAVAILABLE', 'a service or the bus is unreachable; retry after `Retry-After` seconds.'),
      UpstreamTimeout: sharedErrorResponse('UPSTREAM_TIMEOUT', 'a service did not answer in time; retry later (with the same `Idempotency-Key` for a POST that takes one).'),
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
  result[openApiPath(AUDIT_EXPORT_ENDPOINT.path)] = { [AUDIT_EXPORT_ENDPOINT.method.toLowerCase()]: auditExportOperation() };
  return result;
}

/** What a registered webhook receives: one POST per event (OpenAPI 3.1 `webhooks`). */
function webhookDeliveries(): Json {
  return {
    event: {
      post: {
        operationId: 'webhooks.delivery',
        tags: ['webhooks'],
        summary: 'An event delivered to a webhook',
        description:
          'Each event of the account is POSTed to every webhook that takes its type, with the Standard Webhooks headers `webhook-id` (the event ' +
          'id), `webhook-timestamp` and `webhook-signature`. Any 2xx is success; anything else is retried on a schedule of up to 25 h.',
        security: [],
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/PublicEvent' }, example: EXAMPLE_EVENT } } },
        responses: { '200': { description: 'Any 2xx answer acknowledges the event.' } },
      },
    },
  };
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
      { name: 'admin', description: 'Accounts, plans, API keys and the audit export (admin scope)' },
      { name: 'health', description: 'Probes (no key)' },
    ],
    paths: paths(),
    webhooks: webhookDeliveries(),
    components: components(),
  };
}
