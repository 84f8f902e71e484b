// @switchboard/contracts: zod schemas shared by every service. Types are inferred from them.

export * from './common/ids.js';
export * from './common/phone.js';
export * from './common/time.js';
export * from './common/plans.js';
export * from './common/envelope.js';
export * from './common/headers.js';
export * from './common/idempotency.js';
export * from './common/query.js';
export * from './common/routes.js';

export * from './errors/codes.js';
export * from './errors/details.js';
export * from './errors/envelope.js';
export * from './errors/api-error.js';
export * from './errors/validation.js';
export * from './errors/size-limits.js';

export * from './bus/subject.js';
export * from './bus/reply.js';
export * from './bus/registry.js';

export * from './events/define.js';
export * from './events/metadata.js';
export * from './events/parser.js';
export * from './events/streams.js';
export * from './events/registry.js';

export * from './sessions/status.js';
export * from './sessions/http.js';
export * from './sessions/commands.js';
export * from './sessions/events.js';
export * from './sessions/subjects.js';
export * from './sessions/idempotency.js';

export * from './messages/status.js';
export * from './messages/media.js';
export * from './messages/http.js';
export * from './messages/content.js';

export * from './messaging/commands.js';
export * from './messaging/events.js';
export * from './messaging/inbound.js';
export * from './messaging/subjects.js';

export * from './quota/keys.js';
export * from './quota/commands.js';
export * from './quota/events.js';
export * from './quota/subjects.js';

export * from './admin/http.js';
export * from './admin/audit-http.js';
export * from './health/http.js';
export * from './health/ready.js';

export * from './examples/ids.js';
export * from './examples/http.js';

export * from './messages/history.js';
export * from './messages/history-http.js';
export * from './public-events/catalogue.js';
export * from './public-events/feed.js';

export * from './webhooks/events.js';
export * from './webhooks/idempotency.js';
export * from './webhooks/http.js';
export * from './webhooks/subjects.js';
export * from './projections/rebuild.js';
