export { startSessionsService } from './service.js';
export type { SessionsServiceOptions } from './service.js';
export type { ChatNetworkOverrides } from './chat-network.js';
export { SessionListProjection } from './projections/session-list/projection.js';
export { SESSIONS_READ_MODELS } from './projections/read-models.js';
