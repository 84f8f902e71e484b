import { describe, expect, it } from 'vitest';
import { validationIssues } from '../errors/validation.js';
import { EXAMPLE_IDS as ID } from '../examples/ids.js';
import { CreateSessionBody, ListSessionsQuery, SessionIdParams, SessionView } from './http.js';

describe('list query: coercion, defaults and clamping', () => {
  it.each<[Record<string, unknown>, { limit: number; offset: number }]>([
    [{}, { limit: 10, offset: 0 }],
    [{ limit: '1' }, { limit: 1, offset: 0 }],
    [{ limit: '25', offset: '50' }, { limit: 25, offset: 50 }],
    [{ limit: '100' }, { limit: 100, offset: 0 }],
    [{ limit: '101' }, { limit: 100, offset: 0 }],
    [{ limit: '1000000000000000000000' }, { limit: 100, offset: 0 }],
    [{ limit: '007', offset: '0' }, { limit: 7, offset: 0 }],
    [{ limit: 5, offset: 3 }, { limit: 5, offset: 3 }],
  ])('%j becomes %j', (query, expected) => {
    expect(ListSessionsQuery.parse(query)).toEqual(expected);
  });

  it.each<[Record<string, unknown>, string[]]>([
    [{ limit: 'abc' }, ['limit']],
    [{ limit: '1.5' }, ['limit']],
    [{ limit: '-1' }, ['limit']],
    [{ limit: '0' }, ['limit']],
    [{ limit: '' }, ['limit']],
    [{ limit: '1e2' }, ['limit']],
    [{ limit: ' 5' }, ['limit']],
    [{ limit: ['5', '6'] }, ['limit']],
    [{ limit: 0 }, ['limit']],
    [{ limit: 2.5 }, ['limit']],
    [{ offset: '-1' }, ['offset']],
    [{ offset: 'abc' }, ['offset']],
    [{ offset: '1.5' }, ['offset']],
    [{ offset: '99999999999999999999' }, ['offset']],
    [{ status: 'online' }, ['status']],
    [{ status: '' }, ['status']],
    [{ limit: '0', offset: '-1', status: 'x' }, ['limit', 'offset', 'status']],
  ])('%j is invalid at %j', (query, expected) => {
    const result = ListSessionsQuery.safeParse(query);
    expect(result.success).toBe(false);
    expect(result.error && validationIssues(result.error).map((d) => d.path).sort()).toEqual(expected);
  });

  it('names the rule in the message', () => {
    expect(ListSessionsQuery.safeParse({ limit: 'abc' }).error?.issues[0]?.message).toBe('limit must be a whole number of at least 1');
  });

  it.each(['pending', 'connected', 'disconnected', 'timeout', 'error'])('accepts status=%s', (status) => {
    expect(ListSessionsQuery.parse({ status })).toEqual({ limit: 10, offset: 0, status });
  });

  it('ignores unknown query parameters', () => {
    expect(ListSessionsQuery.parse({ _: '1700000000' })).toEqual({ limit: 10, offset: 0 });
  });
});

describe('session requests and views', () => {
  it.each([
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(101) }, 'name'],
    [{ name: null }, 'name'],
    [{ label: 'x' }, 'label'],
  ])('rejects create body %j at %s', (body, path) => {
    const result = CreateSessionBody.safeParse(body);
    expect(result.error && validationIssues(result.error)).toEqual([expect.objectContaining({ path })]);
  });

  it('accepts a name of 100 characters', () => {
    expect(CreateSessionBody.parse({ name: 'x'.repeat(100) })).toEqual({ name: 'x'.repeat(100) });
  });

  it('validates the session id path parameter', () => {
    expect(SessionIdParams.safeParse({ sessionId: ID.session }).success).toBe(true);
    expect(SessionIdParams.safeParse({ sessionId: 'ses_123' }).success).toBe(false);
  });

  it('requires name to be present (null when absent) in a view', () => {
    const view = { sessionId: ID.session, status: 'pending', statusReason: null, createdAt: '2026-11-21T10:15:30.000Z', lastActivity: '2026-11-21T10:15:30.000Z' };
    expect(SessionView.safeParse(view).success).toBe(false);
    expect(SessionView.parse({ ...view, name: null }).name).toBeNull();
  });

  it('carries why a session stopped: a code and a sentence, null while pending or connected', () => {
    const view = { sessionId: ID.session, name: null, createdAt: '2026-11-21T10:15:30.000Z', lastActivity: '2026-11-21T10:15:30.000Z' };
    const reason = { code: 'logged_out', message: 'The device was unlinked from the phone.' };
    expect(SessionView.parse({ ...view, status: 'disconnected', statusReason: reason }).statusReason).toEqual(reason);
    expect(SessionView.safeParse({ ...view, status: 'disconnected', statusReason: { code: '' } }).success).toBe(false);
    expect(SessionView.safeParse({ ...view, status: 'pending' }).success).toBe(false);
  });

  it('refuses timestamps with an offset: responses are UTC', () => {
    const view = { sessionId: ID.session, status: 'pending', statusReason: null, name: null, createdAt: '2026-11-21T11:15:30+01:00', lastActivity: '2026-11-21T10:15:30Z' };
    expect(SessionView.safeParse(view).error?.issues.map((i) => i.path.join('.'))).toEqual(['createdAt']);
  });
});
