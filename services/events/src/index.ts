export { startEventsService } from './service.js';
export type { RunningEventsService, StartEventsServiceOptions } from './service.js';
export { EventsApi } from './handlers/events-api.js';
export { DEFAULT_RETRY_SCHEDULE_MS } from './dispatch/retry-schedule.js';
