export { startMessagingService } from './service.js';
export type { RunningMessagingService, StartMessagingServiceOptions } from './service.js';
export { openMessagingEngine } from './engine.js';
export type { MessagingEngine, MessagingEngineOptions, MessagingHooks, MessagingServiceConfig } from './engine.js';
export { MessagingApi } from './handlers/messaging-api.js';
export { systemClock } from './application/clock.js';
export type { Clock } from './application/clock.js';
export type { DeliveryOutcome } from './send/delivery.js';
export type { Resolver, ResolvedAddress } from './media/fetch-url.js';
