export { startQuotaService } from './service.js';
export type { QuotaServiceConfig, RunningQuotaService, StartQuotaServiceOptions } from './service.js';
export { openQuotaEngine } from './engine.js';
export type { QuotaEngine, QuotaEngineOptions } from './engine.js';
export { QuotaApi } from './application/quota-api.js';
export { systemClock } from './application/clock.js';
export type { Clock } from './application/clock.js';
export { BOOTSTRAP_ACCOUNT_ID, adminKeyIdOf } from './bootstrap.js';
export type { BootstrapAccount } from './bootstrap.js';
