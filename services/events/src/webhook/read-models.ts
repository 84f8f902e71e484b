import type { ServiceReadModels } from '@switchboard/service-kit';
import { dispatchDatabaseFile } from '../store/database.js';
import { WebhookProjection } from './projection.js';

/**
 * The events service's read model, as `switchboard projections rebuild` rebuilds it: the webhook
 * list, in the dispatch database beside the state that is not rebuilt (deliveries, secrets, the
 * public feed), which a rebuild leaves as it is.
 */
export const EVENTS_READ_MODELS: ServiceReadModels = {
  service: 'events',
  file: dispatchDatabaseFile,
  projections: [{ name: 'webhooks', open: (db) => new WebhookProjection(db) }],
};
