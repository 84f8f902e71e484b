export { PrivateNatsServer, closedLoopbackPort } from './private-nats-server.js';
export type { PrivateNatsServerOptions } from './private-nats-server.js';
