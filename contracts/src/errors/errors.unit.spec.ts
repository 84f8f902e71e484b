import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { busFail, busOk, busReply, unwrapBusReply } from '../bus/reply.js';
import { ApiError, isApiError, toApiError } from './api-error.js';
import { ERROR_DEFAULT_MESSAGE, ERROR_HTTP_STATUS, ErrorCode } from './codes.js';
import { ErrorEnvelope } from './envelope.js';
import { validationError, validationIssues } from './validation.js';

describe('error codes', () => {
  it('maps every code of api-decisions.md to its HTTP status', () => {
    expect(ERROR_HTTP_STATUS).toEqual({
      INVALID_JSON: 400,
      VALIDATION_ERROR: 400,
      UNAUTHORIZED: 401,
      FORBIDDEN: 403,
      SESSION_NOT_FOUND: 404,
      MESSAGE_NOT_FOUND: 404,
      MEDIA_NOT_FOUND: 404,
      ROUTE_NOT_FOUND: 404,
      ACCOUNT_NOT_FOUND: 404,
      KEY_NOT_FOUND: 404,
      WEBHOOK_NOT_FOUND: 404,
      WEBHOOK_URL_FORBIDDEN: 400,
      WEBHOOK_LIMIT_REACHED: 409,
      REQUEST_TIMEOUT: 408,
      SESSION_NOT_CONNECTED: 409,
      SESSION_NOT_PENDING: 409,
      IDEMPOTENCY_KEY_REUSED: 409,
      PAYLOAD_TOO_LARGE: 413,
      UNSUPPORTED_MEDIA_TYPE: 415,
      MEDIA_UNREACHABLE: 422,
      MEDIA_TOO_LARGE: 422,
      MEDIA_TYPE_MISMATCH: 422,
      MEDIA_URL_FORBIDDEN: 422,
      RECIPIENT_NOT_ON_CHAT_NETWORK: 422,
      SESSION_LIMIT_REACHED: 429,
      DAILY_MESSAGE_LIMIT_REACHED: 429,
      CONTACT_CHECK_LIMIT_REACHED: 429,
      CONTENT_ERASED: 410,
      HEADERS_TOO_LARGE: 431,
      INTERNAL_ERROR: 500,
      CHAT_NETWORK_ERROR: 502,
      SERVICE_UNAVAILABLE: 503,
      UPSTREAM_TIMEOUT: 504,
    });
    expect(Object.keys(ERROR_HTTP_STATUS).sort()).toEqual([...ErrorCode.options].sort());
    expect(Object.keys(ERROR_DEFAULT_MESSAGE).sort()).toEqual([...ErrorCode.options].sort());
  });
});

describe('ApiError', () => {
  it('carries code, default message, details and status', () => {
    const error = new ApiError('SESSION_LIMIT_REACHED', undefined, { limit: 1, used: 1 });
    expect(error).toBeInstanceOf(Error);
    expect([error.code, error.message, error.httpStatus]).toEqual(['SESSION_LIMIT_REACHED', 'The plan allows no more concurrent sessions.', 429]);
    expect(error.toEnvelope('trace-1')).toEqual({
      success: false,
      error: { code: 'SESSION_LIMIT_REACHED', message: 'The plan allows no more concurrent sessions.', details: { limit: 1, used: 1 }, requestId: 'trace-1' },
    });
    expect(ErrorEnvelope.safeParse(error.toEnvelope('trace-1')).success).toBe(true);
  });

  it('omits details when there are none', () => {
    expect(new ApiError('SESSION_NOT_FOUND').toBusError()).toEqual({ code: 'SESSION_NOT_FOUND', message: 'No session with this id exists.' });
  });

  it('survives a trip over the bus as JSON', () => {
    const reply = JSON.parse(JSON.stringify(busFail(new ApiError('SESSION_NOT_CONNECTED', 'Session is pending', { status: 'pending' }))));
    const parsed = busReply(z.object({ x: z.number() })).parse(reply);
    let caught: unknown;
    try {
      unwrapBusReply(parsed);
    } catch (error) {
      caught = error;
    }
    expect(isApiError(caught)).toBe(true);
    expect(caught).toMatchObject({ code: 'SESSION_NOT_CONNECTED', message: 'Session is pending', details: { status: 'pending' }, httpStatus: 409 });
  });

  it('unwraps a successful reply to its data', () => {
    expect(unwrapBusReply(busReply(z.object({ x: z.number() })).parse(busOk({ x: 1 })))).toEqual({ x: 1 });
  });

  it('rejects a bus reply with an unknown code', () => {
    expect(busReply(z.null()).safeParse({ ok: false, error: { code: 'NOPE', message: 'x' } }).success).toBe(false);
  });

  it('turns anything else into INTERNAL_ERROR without leaking its message', () => {
    const error = toApiError(new Error('SQLITE_BUSY at /var/lib/db.sqlite'));
    expect([error.code, error.message]).toEqual(['INTERNAL_ERROR', 'An internal error occurred; quote the request id when reporting it.']);
  });
});

describe('validation details', () => {
  const Body = z.object({ a: z.string().max(1), items: z.array(z.object({ t: z.string() }).strict()) }).strict();

  it('lists every problem with a dotted path, unknown keys at their own path', () => {
    const result = Body.safeParse({ a: 'too long', items: [{ t: 'ok' }, { t: 1, u: 2 }], b: 1, c: 2 });
    expect(result.success).toBe(false);
    expect(validationIssues(result.error!).map((d) => [d.path, d.message])).toEqual([
      ['a', 'a must be at most 1 character'],
      ['items.1.t', 'items.1.t must be a string'],
      ['items.1.u', 'items.1.u is not a known field'],
      ['b', 'b is not a known field'],
      ['c', 'c is not a known field'],
    ]);
  });

  it('builds VALIDATION_ERROR with an optional location prefix', () => {
    const error = validationError(z.object({ limit: z.number() }).safeParse({}).error!, 'query');
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.httpStatus).toBe(400);
    expect(error.details).toEqual([{ path: 'query.limit', message: 'limit is required' }]);
  });

  it.each([
    [z.object({ to: z.string() }), {}, 'to is required'],
    [z.object({ name: z.string().max(20) }), { name: 'x'.repeat(21) }, 'name must be at most 20 characters'],
    [z.object({ name: z.string().min(1) }), { name: '' }, 'name must not be empty'],
    [z.object({ options: z.array(z.string()).min(2) }), { options: ['a'] }, 'options must have at least 2 items'],
    [z.object({ n: z.number().int().max(10) }), { n: 11 }, 'n must be at most 10'],
    [z.object({ n: z.number().int() }), { n: 1.5 }, 'n must be a whole number'],
    [z.object({ plan: z.enum(['free', 'basic']) }), { plan: 'gold' }, 'plan must be one of "free", "basic"'],
    [z.object({ ok: z.boolean() }), { ok: 'yes' }, 'ok must be true or false'],
    [z.object({ to: z.string().regex(/^\d+$/, 'must be digits only') }), { to: '+1' }, 'to must be digits only'],
    [z.object({ caption: z.string().max(3, 'caption must be short') }), { caption: 'long' }, 'caption must be short'],
  ] as const)('says in words what is wrong: %#', (schema, input, message) => {
    const result = (schema as z.ZodType).safeParse(input);
    expect(validationIssues(result.error!).map((d) => d.message)).toEqual([message]);
  });
});
