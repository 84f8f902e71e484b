import { webhookEventParser } from '@switchboard/contracts';
import type { WebhookEvent } from '@switchboard/contracts';
import type { AggregateFold } from '@switchboard/service-kit';
import { evolve } from './evolve.js';
import { initialState } from './state.js';
import type { Webhook } from './state.js';

/** How a `webhook-wh_…` stream folds into a Webhook (for the service-kit handler loop). */
export const webhookFold: AggregateFold<Webhook, WebhookEvent> = {
  initial: initialState,
  evolve,
  parse: (raw) => webhookEventParser.parse(raw),
};
