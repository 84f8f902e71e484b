import type { AggregateFold } from '@switchboard/service-kit';
import type { MessageFacts } from '../contents/message-facts.js';
import type { MessageFact } from '../contents/opened-content.js';
import { evolve } from './evolve.js';
import { initialState } from './state.js';
import type { Message } from './state.js';

/**
 * How a `message-msg_…` stream folds into a Message (for the service-kit handler loop): contents
 * opened as they are read (the keys loaded first) and sealed as they are written.
 */
export function messageFold(facts: MessageFacts): AggregateFold<Message, MessageFact> {
  return {
    initial: initialState,
    evolve,
    parse: (raw) => facts.parse(raw),
    prepare: (recorded) => facts.prepare(recorded),
    encode: (fact) => facts.encode(fact),
  };
}
