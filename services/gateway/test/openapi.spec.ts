import { ADMIN_ENDPOINTS, HEALTH_ENDPOINTS, HTTP_EXAMPLES, MESSAGE_ENDPOINTS, SESSION_ENDPOINTS, WEBHOOK_ENDPOINTS } from '@switchboard/contracts';
import { InProcessBus } from '@switchboard/bus';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway } from './support.js';

let bus: InProcessBus;
let app: FastifyInstance;

beforeAll(async () => {
  bus = new InProcessBus({ logger: { error() {}, warn() {}, info() {} } });
  app = await startGateway(bus);
});
afterAll(async () => {
  await app.close();
  await bus.close();
});

const ALL = [SESSION_ENDPOINTS, MESSAGE_ENDPOINTS, WEBHOOK_ENDPOINTS, ADMIN_ENDPOINTS, HEALTH_ENDPOINTS].flatMap((table) => Object.values(table));

describe('/v1/openapi.json', () => {
  it('is OpenAPI 3.1 JSON, without a key, under both prefixes', async () => {
    for (const url of ['/v1/openapi.json', '/api/v1/openapi.json']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(response.body)).toMatchObject({ openapi: '3.1.0', info: { title: 'Switchboard API' } });
    }
  });

  it('lists every endpoint of the contracts endpoint tables with its success status', async () => {
    const document = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    for (const endpoint of ALL) {
      const path = endpoint.path.replace(/:(\w+)/g, '{$1}');
      const operation = document.paths[path]?.[endpoint.method.toLowerCase()];
      expect(operation, `${endpoint.method} ${path}`).toBeDefined();
      expect(Object.keys(operation.responses)).toContain(String(endpoint.status));
    }
    // The tables' JSON endpoints plus the live stream GET /v1/events and the audit export download.
    const count = Object.values(document.paths as Record<string, object>).reduce((n, methods) => n + Object.keys(methods).length, 0);
    expect(count).toBe(ALL.length + 2);
    expect(ALL.length).toBe(34);
  });

  it('documents the live stream GET /v1/events: filters, Last-Event-ID, a text/event-stream body and its errors', async () => {
    const document = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const stream = document.paths['/v1/events'].get;
    expect(stream.tags).toEqual(['events']);
    const params = stream.parameters.map((p: { name: string; in: string; required: boolean }) => `${p.in}:${p.name}:${p.required}`);
    expect(params).toEqual(['query:types:false', 'query:sessionId:false', 'header:Last-Event-ID:false']);
    expect(stream.parameters[0].description).toContain('message.received');
    const ok = stream.responses['200'];
    expect(Object.keys(ok.content)).toEqual(['text/event-stream']);
    expect(ok.description).toMatch(/`id:`.*`event:`.*`data:`/s);
    expect(ok.description).toContain('every 15 s');
    const frame: string = ok.content['text/event-stream'].example;
    expect(frame).toMatch(/^id: evt_\w+\nevent: message\.status\ndata: \{.*\}\n\n$/);
    expect(JSON.parse(frame.split('\n')[2]!.slice('data: '.length))).toMatchObject({ type: 'message.status', data: { status: 'delivered' } });
    expect(document.components.schemas.PublicEvent).toBeDefined();
    for (const status of ['400', '401', '403', '408', '431', '500', '503', '504']) expect(stream.responses[status], status).toBeDefined();
    expect(stream.responses['404']).toBeUndefined();
    expect(stream.responses['413']).toBeUndefined();
  });

  it('declares bearer auth, public probes, the /api note, error envelopes and examples', async () => {
    const document = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    expect(document.components.securitySchemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(document.paths['/healthz'].get.security).toEqual([]);
    expect(document.info.description).toContain('/api/v1/');
    expect(document.components.schemas.ErrorEnvelope.properties.success).toMatchObject({ type: 'boolean', const: false });
    const sendButtons = document.paths['/v1/messages/buttons'].post;
    expect(sendButtons.requestBody.content['application/json'].example).toEqual(HTTP_EXAMPLES.sendButtonsBody);
    expect(sendButtons.requestBody.content['application/json'].schema).toMatchObject({ additionalProperties: false });
    expect(sendButtons.responses['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(sendButtons.responses['400'].content['application/json'].examples.VALIDATION_ERROR.value).toEqual(HTTP_EXAMPLES.validationErrorResponse);
    const list = document.paths['/v1/sessions'].get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`);
    expect(list).toEqual(['query:limit', 'query:offset', 'query:status']);
    expect(document.paths['/v1/sessions'].post.requestBody.required).toBe(false);
    expect(document.paths['/v1/messages/text'].post.requestBody.required).toBe(true);
  });

  it('documents what the HTTP server refuses before routing: 408 and 431 on every operation, both codes in the table', async () => {
    const document = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, { responses: Record<string, unknown> }>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect(operation.responses['408'], `${method} ${path}`).toEqual({ $ref: '#/components/responses/RequestTimeout' });
        expect(operation.responses['431'], `${method} ${path}`).toEqual({ $ref: '#/components/responses/HeadersTooLarge' });
      }
    }
    expect(document.info.description).toContain('| 408 | `REQUEST_TIMEOUT` |');
    expect(document.info.description).toContain('| 431 | `HEADERS_TOO_LARGE` |');
    expect(document.info.description).toContain('120 s');
  });
});

describe('every operation: what it can answer, with its codes and headers', () => {
  const statusesOf = (operation: { responses: object }) => Object.keys(operation.responses);

  it('lists the statuses of each kind of operation, readyz 503 included', async () => {
    const document = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    for (const kind of ['text', 'media', 'location', 'buttons']) {
      expect(statusesOf(document.paths[`/v1/messages/${kind}`].post), kind).toEqual(
        ['201', '202', '400', '401', '403', '404', '408', '409', '413', '415', '422', '429', '431', '500', '502', '503', '504'],
      );
    }
    expect(statusesOf(document.paths['/v1/sessions'].post)).toEqual(['201', '400', '401', '403', '408', '409', '413', '415', '429', '431', '500', '502', '503', '504']);
    expect(statusesOf(document.paths['/v1/sessions/{sessionId}/qr'].get)).toContain('409');
    expect(statusesOf(document.paths['/readyz'].get)).toEqual(['200', '408', '431', '500', '503']);
    expect(document.paths['/readyz'].get.responses['503'].content['application/json'].example.status).toBe('not_ready');
  });

  it('names each code a status stands for, and the headers that come with it', async () => {
    const document = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const send = document.paths['/v1/messages/media'].post;
    expect(Object.keys(send.responses['422'].content['application/json'].examples)).toEqual(
      ['RECIPIENT_NOT_ON_CHAT_NETWORK', 'MEDIA_UNREACHABLE', 'MEDIA_TOO_LARGE', 'MEDIA_TYPE_MISMATCH', 'MEDIA_URL_FORBIDDEN'],
    );
    expect(send.responses['409'].description).toContain('`SESSION_NOT_CONNECTED`');
    expect(send.responses['409'].description).toContain('`IDEMPOTENCY_KEY_REUSED`');
    expect(Object.keys(send.responses['429'].headers)).toEqual(['X-Request-Id', 'Retry-After', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']);
    for (const status of ['201', '202']) {
      expect(Object.keys(send.responses[status].headers), status).toEqual(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Idempotent-Replayed']);
    }
    expect(send.responses['202'].content['application/json'].example.data.status).toBe('pending');
    expect(send.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(document.components.responses.ServiceUnavailable.headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
    expect(document.components.responses.Unauthorized.headers['WWW-Authenticate']).toEqual({ $ref: '#/components/headers/WwwAuthenticate' });
    const create = document.paths['/v1/sessions'].post;
    expect(create.responses['429'].description).toContain('`SESSION_LIMIT_REACHED`');
    expect(create.responses['201'].headers['Idempotent-Replayed']).toBeDefined();
    expect(document.paths['/v1/messages/{messageId}/media'].get.responses['200'].content).toHaveProperty('*/*');
  });

  it('gives each operation a summary and a description, and says integer where integers are meant', async () => {
    const document = (await app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, { summary: string; description: string }>>)) {
      for (const [method, operation] of Object.entries(methods)) {
        expect(operation.summary, `${method} ${path}`).toMatch(/^[A-Z]/);
        expect(operation.description.length, `${method} ${path}`).toBeGreaterThan(20);
      }
    }
    const limit = document.paths['/v1/sessions'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1 });
    const page = document.paths['/v1/sessions'].get.responses['200'].content['application/json'].schema.properties.data.properties;
    expect([page.total.type, page.limit.type, page.offset.type]).toEqual(['integer', 'integer', 'integer']);
    const media = document.paths['/v1/messages/media'].post.requestBody.content['application/json'].schema.properties.media;
    expect(media.description).toMatch(/URL.*base64.*5 MiB.*16 MiB.*100 MiB/s);
  });
});

describe('/docs', () => {
  it('is an interactive page served from the project itself: its one script is ours, nothing from elsewhere', async () => {
    const bare = await app.inject({ method: 'GET', url: '/docs' });
    expect([bare.statusCode, bare.headers['location']]).toEqual([301, '/docs/']);
    const response = await app.inject({ method: 'GET', url: '/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    const csp = String(response.headers['content-security-policy']);
    for (const directive of ["default-src 'none'", "script-src 'self'", "connect-src 'self'"]) expect(csp).toContain(directive);
    const html = response.body;
    expect(html).toContain('/v1/openapi.json');
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.filter((url) => /^(https?:)?\/\//.test(url))).toEqual([]);
    expect(sources).toEqual(['js/scalar.js']);
    const script = await app.inject({ method: 'GET', url: '/docs/js/scalar.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    const elsewhere = await app.inject({ method: 'GET', url: '/docs/nothing-here' });
    expect([elsewhere.statusCode, elsewhere.json().error.code]).toEqual([404, 'ROUTE_NOT_FOUND']);
  });
});

