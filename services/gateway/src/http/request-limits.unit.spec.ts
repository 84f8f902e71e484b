import { describe, expect, it } from 'vitest';
import { clientErrorAnswer } from './client-errors.js';
import { belowFloor, carriesBody, REQUEST_LIMITS, serverTimeouts } from './request-limits.js';

const limits = { requestTimeoutMs: 120_000, minBodyBytesPerSecond: 1_000, bodyGraceMs: 10_000 };

describe('the body-rate floor', () => {
  it('never cuts within the grace period, however little has arrived', () => {
    expect(belowFloor(0, 9_999, limits)).toBe(false);
  });

  it('after the grace period, cuts a body below the average rate and keeps one at or above it', () => {
    expect(belowFloor(9_999, 10_000, limits)).toBe(true);
    expect(belowFloor(10_000, 10_000, limits)).toBe(false);
    expect(belowFloor(25_000, 30_000, limits)).toBe(true);
  });
});

describe('which requests carry a body (RFC 9112 §6.3)', () => {
  it.each([
    [{}, false],
    [{ 'content-length': '0' }, false],
    [{ 'content-length': '12' }, true],
    [{ 'transfer-encoding': 'chunked' }, true],
  ])('%o -> %s', (headers, expected) => {
    expect(carriesBody(headers)).toBe(expected);
  });
});

describe('node server timeouts', () => {
  it('keeps the head timeout at or under the whole-request timeout (node swaps them otherwise)', () => {
    expect(serverTimeouts({ ...limits, requestTimeoutMs: 2_000 }).http.headersTimeout).toBe(2_000);
    expect(serverTimeouts(REQUEST_LIMITS)).toEqual({ requestTimeout: 120_000, http: { connectionsCheckingInterval: 1_000, headersTimeout: 60_000 } });
  });
});

describe('answers to what node refuses before routing', () => {
  it.each([
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'REQUEST_TIMEOUT'],
    ['HPE_HEADER_OVERFLOW', 431, 'HEADERS_TOO_LARGE'],
    ['HPE_INVALID_HEADER_TOKEN', 400, 'VALIDATION_ERROR'],
    ['HPE_SOMETHING_NEW', 400, 'VALIDATION_ERROR'],
    [undefined, 400, 'VALIDATION_ERROR'],
  ])('%s -> %i %s', (code, status, errorCode) => {
    const answer = clientErrorAnswer(code, limits, true);
    expect([answer.httpStatus, answer.code]).toEqual([status, errorCode]);
  });

  it("states the timeout that applied: the head's until the head is in, the whole request's after", () => {
    expect(clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT', limits, false)).toMatchObject({ message: 'The request head was not received within 60 s.', details: { timeoutSeconds: 60 } });
    expect(clientErrorAnswer('ERR_HTTP_REQUEST_TIMEOUT', limits, true)).toMatchObject({ message: 'The request was not received within 120 s.', details: { timeoutSeconds: 120 } });
  });

  it('names the part of the request at fault, in its own words', () => {
    expect(clientErrorAnswer('HPE_INVALID_CHUNK_SIZE', limits, true).details).toEqual([{ path: 'body', message: expect.stringContaining('chunked') }]);
    expect(clientErrorAnswer('HPE_SOMETHING_NEW', limits, false).details).toEqual([{ path: 'request', message: 'The request is not valid HTTP/1.1.' }]);
  });
});
