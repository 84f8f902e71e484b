import { sessionEventParser } from '@switchboard/contracts';
import type { SessionEvent } from '@switchboard/contracts';
import type { AggregateFold } from '@switchboard/service-kit';
import { evolve } from './evolve.js';
import { initialState } from './state.js';
import type { Session } from './state.js';

/** How a `session-ses_…` stream folds into a Session; events are validated as they are read. */
export const sessionFold: AggregateFold<Session, SessionEvent> = {
  initial: initialState,
  evolve,
  parse: (raw) => sessionEventParser.parse(raw) as SessionEvent,
};
