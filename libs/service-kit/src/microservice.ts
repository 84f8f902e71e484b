import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestMicroservice } from '@nestjs/common';
import { BusExceptionFilter, BusTransport } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';

export interface MicroserviceOptions {
  bus: Bus;
  /** Queue group of the service's request handlers: its name, so replicas share requests. */
  queue: string;
}

/**
 * Starts a NestJS microservice whose `@MessagePattern` / `@EventPattern` handlers listen on the
 * given bus, in-process (embedded) or NATS (distributed): the same handlers either way.
 */
export async function startMicroservice(module: unknown, options: MicroserviceOptions): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice(module as never, {
    strategy: new BusTransport(options.bus, { queue: options.queue }),
    logger: false,
  });
  app.useGlobalFilters(new BusExceptionFilter());
  await app.listen();
  return app;
}

/** A started service, as the embedded app and each process entry point hold it. */
export interface RunningService {
  readonly name: string;
  /** Read models caught up and the bus connected: what `/readyz` reports. */
  ready(): boolean;
  close(): Promise<void>;
}
