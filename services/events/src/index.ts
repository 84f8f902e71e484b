export { startEventsService } from './service.js';
export type { RunningEventsService, StartEventsServiceOptions } from './service.js';
export { EventsApi } from './handlers/events-api.js';
export { EVENTS_READ_MODELS } from './webhook/read-models.js';
export { DEFAULT_RETRY_SCHEDULE_MS } from './dispatch/retry-schedule.js';
export { eraseRecordedContents } from './store/erase-recorded-contents.js';
