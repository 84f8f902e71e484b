export { BusHeader } from './bus.js';
export type {
  Bus,
  BusHandler,
  BusHealth,
  BusHeaders,
  BusMessage,
  BusReply,
  BusSubscription,
  DirectAnswer,
  PublishOptions,
  RequestOptions,
  SubscribeOptions,
} from './bus.js';
export {
  BusError,
  BusUnavailableError,
  ConnectionLostError,
  DeadlineExceededError,
  INTERNAL_ERROR,
  NoResponderError,
  RemoteError,
  toRemoteErrorBody,
} from './errors.js';
export type { RemoteErrorBody } from './errors.js';
export type { ReplyEnvelope } from './envelope.js';
export { InProcessBus } from './in-process-bus.js';
export type { InProcessBusOptions } from './in-process-bus.js';
export { NatsBus, natsConnectOptions, natsServiceConnectionOptions, parseServers } from './nats-bus.js';
export type { NatsBusOptions } from './nats-bus.js';
export { createBus } from './create-bus.js';
export type { CreateBusOptions } from './create-bus.js';
export { currentInboundHeaders } from './tracing.js';
export type { BusLogger } from './logger.js';
export { BusTransport } from './nest/bus-transport.js';
export type { BusTransportOptions } from './nest/bus-transport.js';
export { BusContext } from './nest/bus-context.js';
export { BusExceptionFilter } from './nest/bus-exception-filter.js';
export { answerInProcess, callService, ContractViolationError, DEFAULT_CALL_TIMEOUT_MS, parseRequest, ServiceCallError, toServiceCallError } from './service-client.js';
export type { CallOptions, CallOutcome } from './service-client.js';
