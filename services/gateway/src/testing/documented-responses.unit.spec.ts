import { describe, expect, it } from 'vitest';
import { undocumentedResponses } from './documented-responses.js';

const SESSION = '/v1/sessions/ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';

describe('undocumentedResponses', () => {
  it('accepts what the document lists, under both prefixes and with a query string', () => {
    expect(
      undocumentedResponses([
        { method: 'GET', url: SESSION, status: 200 },
        { method: 'GET', url: `/api${SESSION}`, status: 404, code: 'SESSION_NOT_FOUND' },
        { method: 'GET', url: '/v1/sessions?limit=5', status: 401, code: 'UNAUTHORIZED' },
        { method: 'POST', url: '/v1/messages/text', status: 202 },
      ]),
    ).toEqual([]);
  });

  it('names a status or a code the operation does not list', () => {
    expect(
      undocumentedResponses([
        { method: 'GET', url: SESSION, status: 418 },
        { method: 'GET', url: SESSION, status: 404, code: 'MESSAGE_NOT_FOUND' },
        { method: 'GET', url: '/healthz', status: 401, code: 'UNAUTHORIZED' },
      ]),
    ).toEqual([
      'GET /v1/sessions/{sessionId} answered 418, not documented',
      'GET /v1/sessions/{sessionId} answered 404 MESSAGE_NOT_FOUND, not documented for 404',
      'GET /healthz answered 401 UNAUTHORIZED, not documented',
    ]);
  });

  it('matches a literal path before a template, and leaves requests of no operation alone', () => {
    expect(undocumentedResponses([{ method: 'POST', url: '/v1/messages/text', status: 404, code: 'MESSAGE_NOT_FOUND' }])).toEqual([]);
    expect(undocumentedResponses([{ method: 'GET', url: '/v1/nowhere', status: 404, code: 'ROUTE_NOT_FOUND' }])).toEqual([]);
  });
});
