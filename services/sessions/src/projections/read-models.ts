import { readModelFile } from '@switchboard/service-kit';
import type { ServiceReadModels } from '@switchboard/service-kit';
import { SessionListProjection } from './session-list/projection.js';

/** The sessions service's read models, as `switchboard projections rebuild` rebuilds them. */
export const SESSIONS_READ_MODELS: ServiceReadModels = {
  service: 'sessions',
  file: (config) => readModelFile('sessions', config),
  projections: [{ name: 'session-list', open: (db) => new SessionListProjection(db) }],
};
