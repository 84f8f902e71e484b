import { ApiError, pathsOf, validationError } from '@switchboard/contracts';
import type { ApiKeyScope, EndpointContract, ReplyOf, RequestOf, SubjectContract, ValidationIssue } from '@switchboard/contracts';
import type { SwitchboardConfig } from '@switchboard/service-kit';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { hasScope } from '../auth/principal.js';
import type { Principal } from '../auth/principal.js';
import '../http/deps.js';
import { serializationSchemaOf } from '../http/response-schema.js';
import { inRequestContext } from '../http/trace.js';
import { callService, ContractViolationError } from '@switchboard/bus';

/** Who may call a route: keys with this scope, or anyone (`public`: probes, docs). */
export type RouteScope = ApiKeyScope | 'public';

export interface RouteOptions {
  /** Default: `admin` under `/v1/admin/`, `api` everywhere else. */
  readonly scope?: RouteScope;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

/** Everything a route handler needs; inputs are already validated with the contract's schemas. */
export interface RouteContext<E extends EndpointContract> {
  readonly params: Parsed<E['params']>;
  readonly query: Parsed<E['query']>;
  readonly body: Parsed<E['body']>;
  /** The caller (never null on authenticated routes). */
  readonly principal: Principal;
  /** The caller's account id; 403 FORBIDDEN when the key has none (the operator key). */
  readonly accountId: string;
  /** W3C trace id of the request: `X-Request-Id`, `requestId`, bus `correlation-id`. */
  readonly requestId: string;
  readonly request: FastifyRequest;
  /** Use it for anything beyond the body: `ctx.reply.code(202)`, `ctx.reply.header(...)`. */
  readonly reply: FastifyReply;
  readonly config: SwitchboardConfig;
  readonly logger: FastifyBaseLogger;
  /** `callService` with this request's trace, correlation id and account id filled in. */
  call<S extends SubjectContract>(subject: S, data: RequestOf<S>, options?: { timeoutMs?: number }): Promise<ReplyOf<S>>;
}

/** Returns the success body (envelope included); it is written by `endpoint.response` (see runHandler). */
export type RouteHandler<E extends EndpointContract> = (ctx: RouteContext<E>) => Promise<z.input<E['response']>>;

const NO_ACCOUNT = 'This API key belongs to no account; use an account key for this endpoint.';

/**
 * Registers one endpoint of a contracts endpoint table under `/v1/...` and `/api/v1/...`:
 * authentication and scope (before the body is read), validation of params, query and body
 * with the contract's zod schemas (every problem in one VALIDATION_ERROR), the success status
 * of the contract, and the response written by its schema's compiled serializer (unknown keys
 * dropped; zod where the schema cannot be compiled).
 */
export function defineRoute<E extends EndpointContract>(
  app: FastifyInstance,
  endpoint: E,
  handler: RouteHandler<E>,
  options: RouteOptions = {},
): void {
  const scope = scopeOf(endpoint, options);
  for (const url of pathsOf(endpoint.path)) {
    app.route({
      method: endpoint.method,
      url,
      onRequest: scope === 'public' ? [] : [authHook(app, scope)],
      handler: (request, reply) => inRequestContext(request.sbTrace, () => runHandler(app, endpoint, handler, request, reply)),
    });
  }
}

function scopeOf(endpoint: EndpointContract, options: RouteOptions): RouteScope {
  return options.scope ?? (endpoint.path.startsWith('/v1/admin/') ? 'admin' : 'api');
}

function authHook(app: FastifyInstance, scope: ApiKeyScope) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const principal = await app.gateway.auth.authenticate(request.headers.authorization, {
      requestId: request.id,
      traceContext: request.sbTrace.context,
    });
    request.principal = principal;
    // Every later line of this request, fastify's "request completed" included (it logs through
    // the reply), names the account: its id; the key itself is never logged.
    if (principal.accountId) reply.log = request.log = request.log.child({ account_id: principal.accountId });
    if (!hasScope(principal, scope)) {
      throw new ApiError('FORBIDDEN', `This API key lacks the "${scope}" scope needed for this endpoint.`);
    }
  };
}

async function runHandler<E extends EndpointContract>(
  app: FastifyInstance,
  endpoint: E,
  handler: RouteHandler<E>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<unknown> {
  const input = validateInput(endpoint, request);
  reply.code(endpoint.status);
  const result = await handler(routeContext(app, request, reply, input) as RouteContext<E>);
  // The body written by the contract's compiled serializer (fastify's, compiled on first use and
  // kept per route); zod parses it only where the contract cannot be one (see serializationSchemaOf).
  const schema = serializationSchemaOf(endpoint.response);
  if (schema !== null && !isBinary(result)) {
    reply.type(JSON_TYPE);
    return reply.serializeInput(result as Record<string, unknown>, schema);
  }
  const checked = endpoint.response.safeParse(result);
  if (!checked.success) throw new ContractViolationError(`${endpoint.method} ${endpoint.path}`, checked.error);
  return checked.data;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Bytes (a media download) are sent as they are, never serialised. */
function isBinary(result: unknown): boolean {
  return result instanceof Uint8Array;
}

interface Input {
  params: unknown;
  query: unknown;
  body: unknown;
}

/**
 * Params, query and body against their schemas, all at once. Body paths are as in the body
 * (`buttons.1.text`); query and path parameters are prefixed (`query.limit`, `params.sessionId`).
 * An absent body counts as `{}`, so each missing required field is named.
 */
export function validateInput(endpoint: EndpointContract, request: Pick<FastifyRequest, 'params' | 'query' | 'body'>): Input {
  const issues: ValidationIssue[] = [];
  const check = (schema: z.ZodType | undefined, value: unknown, where?: string): unknown => {
    if (schema === undefined) return undefined;
    const parsed = schema.safeParse(value);
    if (parsed.success) return parsed.data;
    issues.push(...((validationError(parsed.error, where).details as ValidationIssue[] | undefined) ?? []));
    return undefined;
  };
  const input = {
    params: check(endpoint.params, request.params, 'params'),
    query: check(strictQuery(endpoint.query), request.query ?? {}, 'query'),
    body: check(endpoint.body, request.body ?? {}),
  };
  if (issues.length > 0) throw new ApiError('VALIDATION_ERROR', undefined, issues);
  return input;
}

const NO_QUERY = z.object({}).strict();
const strictQueries = new WeakMap<z.ZodType, z.ZodType>();

/**
 * Unknown query parameters are refused like unknown body fields (a typo such as `?limt=5` would
 * otherwise be silently ignored); an endpoint without a query takes none.
 */
function strictQuery(schema: z.ZodType | undefined): z.ZodType {
  if (schema === undefined) return NO_QUERY;
  let strict = strictQueries.get(schema);
  if (!strict) {
    strict = schema instanceof z.ZodObject ? schema.strict() : schema;
    strictQueries.set(schema, strict);
  }
  return strict;
}

function routeContext(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, input: Input): RouteContext<EndpointContract> {
  return new RequestContext(app, request, reply, input) as unknown as RouteContext<EndpointContract>;
}

/**
 * A RouteContext as a class: its `accountId` and `call` live on the prototype, not as a getter
 * and a closure made for every request.
 */
class RequestContext {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
  readonly principal: Principal;
  readonly requestId: string;
  readonly config: SwitchboardConfig;
  readonly logger: FastifyBaseLogger;

  constructor(
    private readonly app: FastifyInstance,
    readonly request: FastifyRequest,
    readonly reply: FastifyReply,
    input: Input,
  ) {
    this.params = input.params;
    this.query = input.query;
    this.body = input.body;
    this.principal = request.principal as Principal;
    this.requestId = request.id;
    this.config = app.gateway.config;
    this.logger = request.log;
  }

  get accountId(): string {
    if (!this.principal?.accountId) throw new ApiError('FORBIDDEN', NO_ACCOUNT);
    return this.principal.accountId;
  }

  call<S extends SubjectContract>(subject: S, data: RequestOf<S>, options?: { timeoutMs?: number }): Promise<ReplyOf<S>> {
    return callService(this.app.gateway.bus, subject, data, {
      correlationId: this.request.id,
      accountId: this.principal?.accountId ?? null,
      timeoutMs: options?.timeoutMs,
      traceContext: this.request.sbTrace.context,
    });
  }
}

/** What a streaming route's handler gets: the validated query and the caller, and the raw reply. */
export type StreamRouteContext<E extends EndpointContract> = Omit<RouteContext<E>, 'body'>;

/**
 * A streamed response (`text/event-stream`, a download): authentication, scope and query
 * validation as `defineRoute`, but the handler writes the response itself (after
 * `reply.hijack()`). Errors it throws before hijacking still answer with the error envelope.
 */
export function defineStreamRoute<E extends EndpointContract>(
  app: FastifyInstance,
  endpoint: E,
  handler: (ctx: StreamRouteContext<E>) => Promise<void>,
  options: RouteOptions = {},
): void {
  const scope = scopeOf(endpoint, options);
  for (const url of pathsOf(endpoint.path)) {
    app.route({
      method: endpoint.method,
      url,
      onRequest: scope === 'public' ? [] : [authHook(app, scope)],
      handler: (request, reply) =>
        inRequestContext(request.sbTrace, async () => {
          const input = validateInput(endpoint, request);
          await handler(routeContext(app, request, reply, input) as StreamRouteContext<E>);
        }),
    });
  }
}
