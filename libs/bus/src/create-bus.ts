import type { Bus } from './bus.js';
import { InProcessBus } from './in-process-bus.js';
import type { BusLogger } from './logger.js';
import { NatsBus } from './nats-bus.js';

export interface CreateBusOptions {
  /** Connection name: the service name. */
  name: string;
  env?: Record<string, string | undefined>;
  /** The process-wide embedded bus to use when no NATS URL is configured. */
  embedded?: InProcessBus;
  logger?: BusLogger;
}

/**
 * The mode switch: `SWITCHBOARD_NATS_URL` set means distributed (NATS, fails fast with
 * `BusUnavailableError` when unreachable); unset means embedded (the shared in-process bus,
 * so the four services of `npm start` talk to each other).
 */
export async function createBus(options: CreateBusOptions): Promise<Bus> {
  const natsUrl = (options.env ?? process.env)['SWITCHBOARD_NATS_URL']?.trim();
  if (natsUrl) return NatsBus.connect({ servers: natsUrl, name: options.name, logger: options.logger });
  return options.embedded ?? new InProcessBus({ logger: options.logger });
}
