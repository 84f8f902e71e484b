import { describe, expect, it } from 'vitest';
import { MintedApiKey } from '../quota/keys.js';
import { IdempotencyKey, parseBearerToken, Traceparent } from './headers.js';
import { pathsOf } from './routes.js';

describe('Authorization header', () => {
  it.each<[string | undefined, string | null]>([
    ['Bearer sbk_abc', 'sbk_abc'],
    ['bearer sbk_abc', 'sbk_abc'],
    ['BEARER   sbk_abc  ', 'sbk_abc'],
    [undefined, null],
    ['', null],
    ['Bearer', null],
    ['Bearer ', null],
    ['Basic dXNlcjpwYXNz', null],
    ['Bearer two tokens', null],
    ['sbk_abc', null],
  ])('%j -> %j', (header, token) => {
    expect(parseBearerToken(header)).toBe(token);
  });
});

describe('header values', () => {
  it('accepts printable idempotency keys up to 255 characters', () => {
    expect(IdempotencyKey.safeParse('x'.repeat(255)).success).toBe(true);
    expect(IdempotencyKey.safeParse('x'.repeat(256)).success).toBe(false);
    expect(IdempotencyKey.safeParse('has space').success).toBe(false);
    expect(IdempotencyKey.safeParse('').success).toBe(false);
  });

  it('accepts W3C traceparents only', () => {
    expect(Traceparent.safeParse('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01').success).toBe(true);
    expect(Traceparent.safeParse('00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01').success).toBe(false);
  });

  it('recognises minted keys', () => {
    expect(MintedApiKey.safeParse(`sbk_${'A'.repeat(43)}`).success).toBe(true);
    expect(MintedApiKey.safeParse(`sbk_${'A'.repeat(42)}`).success).toBe(false);
  });
});

describe('path aliases', () => {
  it('serves /v1 endpoints under /api/v1 too, probes only once', () => {
    expect(pathsOf('/v1/sessions/:sessionId')).toEqual(['/v1/sessions/:sessionId', '/api/v1/sessions/:sessionId']);
    expect(pathsOf('/healthz')).toEqual(['/healthz']);
  });
});
