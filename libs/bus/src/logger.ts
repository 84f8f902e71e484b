import { createLogger } from '@switchboard/telemetry';

/** The part of a pino logger the transports use, so callers can pass their service's logger. */
export interface BusLogger {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
}

export function defaultBusLogger(): BusLogger {
  return createLogger({ service: 'bus' });
}
