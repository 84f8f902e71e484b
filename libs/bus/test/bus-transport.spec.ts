import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, MessagePattern, Payload, RpcException } from '@nestjs/microservices';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bus } from '../src/bus.js';
import { RemoteError } from '../src/errors.js';
import { InProcessBus } from '../src/in-process-bus.js';
import { NatsBus } from '../src/nats-bus.js';
import type { BusContext } from '../src/nest/bus-context.js';
import { BusExceptionFilter } from '../src/nest/bus-exception-filter.js';
import { BusTransport } from '../src/nest/bus-transport.js';
import { eventually, namedError, uniquePrefix } from './support.js';

/** Subjects are fixed at decoration time, so the prefix is per file run, not per test. */
const prefix = uniquePrefix();
const RESERVE = `${prefix}.quota.reserve`;
const FAIL = `${prefix}.quota.fail`;
const REJECT = `${prefix}.quota.reject`;
const CONNECTED = `${prefix}.evt.session.SessionConnected`;
const seenEvents: { sessionId: string; correlationId: string | undefined }[] = [];

@Controller()
class QuotaController {
  @MessagePattern(RESERVE)
  reserve(@Payload() body: { units: number }, @Ctx() context: BusContext) {
    return { reserved: body.units, accountId: context.getAccountId(), subject: context.getSubject() };
  }

  @MessagePattern(FAIL)
  fail(): never {
    throw namedError('QUOTA_EXCEEDED', 'daily quota used up', { limit: 100 });
  }

  @MessagePattern(REJECT)
  reject(): never {
    throw new RpcException({ code: 'PLAN_UNKNOWN', message: 'no such plan' });
  }

  // The explicit type argument picks the untyped overload, whose handler may take a context.
  @EventPattern<string>(CONNECTED)
  onConnected(@Payload() event: { sessionId: string }, @Ctx() context: BusContext) {
    seenEvents.push({ sessionId: event.sessionId, correlationId: context.getHeaders()['correlation-id'] });
  }
}

@Module({ controllers: [QuotaController] })
class QuotaModule {}

/** How a service boots: the same module over whichever bus the mode gives it. */
async function startQuotaService(bus: Bus): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice(QuotaModule, { strategy: new BusTransport(bus, { queue: 'quota' }), logger: false });
  app.useGlobalFilters(new BusExceptionFilter());
  await app.listen();
  return app;
}

const transports: [string, () => Promise<Bus>][] = [
  ['in-process', async () => new InProcessBus()],
  ['nats', () => NatsBus.connect({ servers: process.env['SWITCHBOARD_NATS_URL'] ?? 'nats://127.0.0.1:4222', name: 'bus-transport-test' })],
];

describe.each(transports)('BusTransport over %s', (_name, connect) => {
  let app: INestMicroservice | undefined;
  let bus: Bus | undefined;
  afterEach(async () => {
    await app?.close();
    await bus?.close();
  });

  it('answers @MessagePattern requests with the handler result and the bus context', async () => {
    bus = await connect();
    app = await startQuotaService(bus);
    const reply = await bus.request(RESERVE, { units: 3 }, { timeoutMs: 2_000, headers: { 'account-id': 'acc_1' } });
    expect(reply.data).toEqual({ reserved: 3, accountId: 'acc_1', subject: RESERVE });
  });

  it('keeps domain error codes, from thrown named errors and from RpcException', async () => {
    bus = await connect();
    app = await startQuotaService(bus);
    const failed = await bus.request(FAIL, {}, { timeoutMs: 2_000 }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(RemoteError);
    expect(failed).toMatchObject({ code: 'QUOTA_EXCEEDED', details: { limit: 100 } });
    await expect(bus.request(REJECT, {}, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: 'PLAN_UNKNOWN', message: 'no such plan' });
  });

  it('delivers published events to @EventPattern handlers', async () => {
    bus = await connect();
    app = await startQuotaService(bus);
    seenEvents.length = 0;
    await bus.publish(CONNECTED, { sessionId: 'ses_1' }, { headers: { 'correlation-id': 'corr-7' } });
    await eventually(() => expect(seenEvents).toEqual([{ sessionId: 'ses_1', correlationId: 'corr-7' }]));
  });

  it('stops answering once the microservice closes', async () => {
    bus = await connect();
    app = await startQuotaService(bus);
    await app.close();
    app = undefined;
    await expect(bus.request(RESERVE, { units: 1 }, { timeoutMs: 2_000 })).rejects.toMatchObject({ code: 'NO_RESPONDER' });
  });
});
