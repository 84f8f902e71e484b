import { describe, expectTypeOf, it } from 'vitest';
import type { ListSessionsQuery, SessionView } from '../sessions/http.js';
import type { SessionsSubjects } from '../sessions/subjects.js';
import type { QuotaSubjects } from '../quota/subjects.js';
import type { SessionEvent } from '../sessions/events.js';
import type { ReplyOf, RequestOf } from './subject.js';

// Checked by `npm run typecheck` (tsc reads the specs too): a wrong inferred type fails the
// build, since these assertions are types, not runtime checks.
describe('inferred types', () => {
  it('gives handlers precise request and reply types', () => {
    expectTypeOf<RequestOf<typeof SessionsSubjects.get>>().toEqualTypeOf<{ accountId: string; sessionId: string }>();
    expectTypeOf<ReplyOf<typeof SessionsSubjects.get>>().toEqualTypeOf<SessionView>();
    expectTypeOf<ReplyOf<typeof QuotaSubjects.reserveSession>>().toEqualTypeOf<{ limit: number | null; used: number }>();
  });

  it('applies list defaults in the parsed query type', () => {
    expectTypeOf<ListSessionsQuery['limit']>().toEqualTypeOf<number>();
    expectTypeOf<ListSessionsQuery['offset']>().toEqualTypeOf<number>();
  });

  it('narrows session events by type', () => {
    type Connected = Extract<SessionEvent, { type: 'SessionConnected' }>;
    expectTypeOf<Connected['data']['phone']>().toEqualTypeOf<string>();
    expectTypeOf<Connected['version']>().toEqualTypeOf<1>();
  });
});
