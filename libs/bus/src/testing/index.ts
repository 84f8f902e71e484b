export { PrivateNatsServer } from './private-nats-server.js';
export { closedLoopbackPort, ephemeralPortRange } from './closed-loopback-port.js';
export type { PrivateNatsServerOptions } from './private-nats-server.js';
