export { PrivateNatsServer, closedLoopbackPort } from './private-nats-server.js';
