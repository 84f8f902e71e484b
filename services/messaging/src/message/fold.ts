import { messageEventParser } from '@switchboard/contracts';
import type { MessageEvent } from '@switchboard/contracts';
import type { AggregateFold } from '@switchboard/service-kit';
import { evolve } from './evolve.js';
import { initialState } from './state.js';
import type { Message } from './state.js';

/** How a `message-msg_…` stream folds into a Message (for the service-kit handler loop). */
export const messageFold: AggregateFold<Message, MessageEvent> = {
  initial: initialState,
  evolve,
  parse: (raw) => messageEventParser.parse(raw),
};
