import { readModelFile } from '@switchboard/service-kit';
import type { ServiceReadModels } from '@switchboard/service-kit';
import { messageHistoryProjection } from './message-history/projection.js';
import { messageStatusProjection } from './message-status/projection.js';

/** The messaging service's read models, as `switchboard projections rebuild` rebuilds them. */
export const MESSAGING_READ_MODELS: ServiceReadModels = {
  service: 'messaging',
  file: (config) => readModelFile('messaging', config),
  projections: [
    { name: 'message-status', open: (db) => messageStatusProjection(db) },
    { name: 'message-history', open: (db) => messageHistoryProjection(db) },
  ],
};
