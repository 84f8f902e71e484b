import { describe, expectTypeOf, it, expect } from 'vitest';
import type { ListSessionsQuery, SessionView } from '../sessions/http.js';
import type { SessionsSubjects } from '../sessions/subjects.js';
import type { QuotaSubjects } from '../quota/subjects.js';
import type { SessionEvent } from '../sessions/events.js';
import type { ReplyOf, RequestOf } from './subject.js';

// Checked by `tsc --noEmit`: the inferred types are what handlers and the gateway rely on.
describe('inferred types', () => {
  it('gives handlers precise request and reply types', () => {
    expectTypeOf<RequestOf<typeof SessionsSubjects.get>>().toEqualTypeOf<{ accountId: string; sessionId: string }>();
    expectTypeOf<ReplyOf<typeof SessionsSubjects.get>>().toEqualTypeOf<SessionView>();
    expectTypeOf<ReplyOf<typeof QuotaSubjects.reserveSession>>().toEqualTypeOf<{ limit: number | null; used: number }>();
    expect(true).toBe(true);
  });

  it('applies list defaults in the parsed query type', () => {
    expectTypeOf<ListSessionsQuery['limit']>().toEqualTypeOf<number>();
    expectTypeOf<ListSessionsQuery['offset']>().toEqualTypeOf<number>();
    expect(true).toBe(true);
  });

  it('narrows session events by type', () => {
    type Connected = Extract<SessionEvent, { type: 'SessionConnected' }>;
    expectTypeOf<Connected['data']['phone']>().toEqualTypeOf<string>();
    expectTypeOf<Connected['version']>().toEqualTypeOf<1>();
    expect(true).toBe(true);
  });
});
