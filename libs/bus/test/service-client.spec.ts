import { ApiError, defineSubject } from '@switchboard/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { Bus, BusMessage } from '../src/bus.js';
import { InProcessBus } from '../src/in-process-bus.js';
import { NatsBus } from '../src/nats-bus.js';
import { inMemorySpans, startTelemetry } from '@switchboard/telemetry';
import { answerInProcess, callService, ContractViolationError, parseRequest, ServiceCallError } from '../src/service-client.js';
import { currentInboundHeaders } from '../src/tracing.js';
import { uniquePrefix } from './support.js';

/** The shared NATS server of this machine; tests only use subjects under a unique prefix. */
const SHARED_NATS = process.env['SWITCHBOARD_NATS_URL'] ?? 'nats://127.0.0.1:4222';
const silent = { error() {}, warn() {}, info() {} };

/** A caller and a responder: the same bus in one process, or two NATS connections (two processes). */
const transports = {
  'in-process': async () => {
    const bus = new InProcessBus({ logger: silent });
    return { caller: bus, responder: bus, close: () => bus.close() };
  },
  nats: async () => {
    const [caller, responder] = await Promise.all([0, 1].map(() => NatsBus.connect({ servers: SHARED_NATS, name: 'service-client-test' })));
    return { caller: caller!, responder: responder!, close: async () => void (await Promise.all([caller!.close(), responder!.close()])) };
  },
};

for (const [transport, open] of Object.entries(transports)) {
  describe(`callService, the one way to call another service (${transport})`, () => {
    let caller: Bus;
    let responder: Bus;
    let close: () => Promise<void>;
    let Echo: ReturnType<typeof echoSubject>;
    beforeEach(async () => {
      ({ caller, responder, close } = await open());
      Echo = echoSubject(`${uniquePrefix()}.echo`);
    });
    afterEach(() => close());

    it('sets the standard headers, and parses a message only where it crosses a process boundary', async () => {
      let seen: Record<string, string> = {};
      await responder.subscribe(Echo.subject, (message: BusMessage) => {
        seen = message.headers;
        return { echoed: parseRequest(Echo, message).text };
      });
      const requestParses = vi.spyOn(Echo.request, 'safeParse');
      const replyParses = vi.spyOn(Echo.reply, 'safeParse');
      const reply = await callService(caller, Echo, { text: 'hi' }, { correlationId: 'req-1', causationId: 'evt-9', accountId: 'acc_1' });
      expect(reply).toEqual({ echoed: 'hi' });
      expect(seen).toMatchObject({ 'correlation-id': 'req-1', 'causation-id': 'evt-9', 'account-id': 'acc_1' });
      // Over NATS: the handler parses the request, the caller the reply, once each. In one process: neither.
      const once = transport === 'nats' ? 1 : 0;
      expect([requestParses.mock.calls.length, replyParses.mock.calls.length]).toEqual([once, once]);
    });

    it('keeps a named refusal\'s code, message and details, as refused', async () => {
      await responder.subscribe(Echo.subject, () => {
        throw new ApiError('SESSION_LIMIT_REACHED', 'The plan allows 1 concurrent session.', { limit: 1, used: 1 });
      });
      const failure = await callService(caller, Echo, { text: 'hi' }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(ServiceCallError);
      expect(failure).toMatchObject({ outcome: 'refused', code: 'SESSION_LIMIT_REACHED', message: 'The plan allows 1 concurrent session.', details: { limit: 1, used: 1 }, httpStatus: 429, subject: Echo.subject });
    });

    it('says nobody got it when nobody listens, and maybe when the deadline passed', async () => {
      await expect(callService(caller, Echo, { text: 'hi' })).rejects.toMatchObject({ outcome: 'not_delivered', code: 'SERVICE_UNAVAILABLE' });
      await responder.subscribe(Echo.subject, () => new Promise(() => undefined));
      await expect(callService(caller, Echo, { text: 'hi' }, { timeoutMs: 50 })).rejects.toMatchObject({ outcome: 'unknown', code: 'UPSTREAM_TIMEOUT' });
    });

    it('throws the other side\'s internal error as it is (a bug, not a refusal)', async () => {
      await responder.subscribe(Echo.subject, () => {
        throw new Error('boom');
      });
      const internal = await callService(caller, Echo, { text: 'crash' }).catch((error: unknown) => error);
      expect(internal).not.toBeInstanceOf(ServiceCallError);
      expect(internal).toMatchObject({ name: 'RemoteError', code: 'INTERNAL_ERROR' });
    });
  });
}

describe('a direct answer: a read answered in its own process without the bus', () => {
  let bus: InProcessBus;
  let Echo: ReturnType<typeof echoSubject>;
  /** Requests the bus subscription received: the direct answer must leave it none. */
  let overTheBus: number;
  beforeEach(async () => {
    bus = new InProcessBus({ logger: silent });
    Echo = echoSubject(`${uniquePrefix()}.echo`);
    overTheBus = 0;
    await bus.subscribe(Echo.subject, (message: BusMessage) => {
      overTheBus += 1;
      return { echoed: `bus:${parseRequest(Echo, message).text}` };
    });
  });
  afterEach(() => bus.close());

  it('is called instead of the bus, with the call\'s headers as the handler\'s, and its request and reply as they are', async () => {
    const request = { text: 'hi' };
    let seen: { headers: Readonly<Record<string, string>> | undefined; request: unknown } | undefined;
    const reply = { echoed: 'direct:hi' };
    answerInProcess(bus, Echo, (asked) => {
      seen = { headers: currentInboundHeaders(), request: asked };
      return reply;
    });
    const requestParses = vi.spyOn(Echo.request, 'safeParse');
    const answered = await callService(bus, Echo, request, { correlationId: 'req-1', causationId: 'evt-9', accountId: 'acc_1' });
    expect(answered).toBe(reply);
    expect(seen?.request).toBe(request);
    expect(seen?.headers).toEqual({ 'correlation-id': 'req-1', 'causation-id': 'evt-9', 'account-id': 'acc_1' });
    expect([overTheBus, requestParses.mock.calls.length]).toEqual([0, 0]);
  });

  it('gives a call made inside a handler the handler\'s correlation and account, as the bus does', async () => {
    const Outer = echoSubject(`${uniquePrefix()}.outer`);
    const seen: Record<string, Readonly<Record<string, string>> | undefined> = {};
    answerInProcess(bus, Echo, () => {
      seen['direct'] = currentInboundHeaders();
      return { echoed: 'direct' };
    });
    await bus.subscribe(Outer.subject, () => callService(bus, Echo, { text: 'inner' }));
    await callService(bus, Outer, { text: 'outer' }, { correlationId: 'req-7', accountId: 'acc_7' });
    expect(seen['direct']).toMatchObject({ 'correlation-id': 'req-7', 'account-id': 'acc_7' });
  });

  it('fails as the bus would carry the failure: a named refusal as refused, anything else as the internal error', async () => {
    const viaBus = echoSubject(`${uniquePrefix()}.echo`);
    const failures = [
      () => new ApiError('SESSION_LIMIT_REACHED', 'The plan allows 1 concurrent session.', { limit: 1, used: 1 }),
      () => Object.assign(new Error('secret detail /var/lib/x'), { code: 'not a public code' }),
    ];
    for (const failure of failures) {
      const stop = answerInProcess(bus, Echo, () => Promise.reject(failure()));
      await bus.subscribe(viaBus.subject, () => {
        throw failure();
      });
      const direct = await callService(bus, Echo, { text: 'hi' }).catch((error: unknown) => error);
      const carried = await callService(bus, viaBus, { text: 'hi' }).catch((error: unknown) => error);
      expect(direct).toBeInstanceOf((carried as object).constructor);
      expect(JSON.stringify(direct)).toEqual(JSON.stringify(carried).replaceAll(viaBus.subject, Echo.subject));
      expect(direct).toMatchObject({ code: (carried as { code: string }).code, message: (carried as Error).message });
      stop();
      await bus.close();
      bus = new InProcessBus({ logger: silent });
    }
  });

  it('is not offered once removed or once the bus is closed, nor while spans are recorded (the trace shows the hop)', async () => {
    const remove = answerInProcess(bus, Echo, () => ({ echoed: 'direct' }));
    const spans = inMemorySpans();
    const telemetry = startTelemetry({ serviceName: 'direct-answer-test', env: {}, spanProcessors: [spans.processor] });
    try {
      expect(await callService(bus, Echo, { text: 'traced' })).toEqual({ echoed: 'bus:traced' });
    } finally {
      await telemetry.shutdown();
    }
    expect(await callService(bus, Echo, { text: 'x' })).toEqual({ echoed: 'direct' });
    remove();
    expect(await callService(bus, Echo, { text: 'removed' })).toEqual({ echoed: 'bus:removed' });
    answerInProcess(bus, Echo, () => ({ echoed: 'direct' }));
    await bus.close();
    await expect(callService(bus, Echo, { text: 'closed' })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });

  it('is never offered over NATS (the answering process may be any)', async () => {
    const nats: Bus = await NatsBus.connect({ servers: SHARED_NATS, name: 'service-client-test' });
    try {
      expect(answerInProcess(nats, Echo, () => ({ echoed: 'direct' }))).toBeTypeOf('function');
      expect(nats.directAnswer?.(Echo.subject)).toBeUndefined();
    } finally {
      await nats.close();
    }
  });
});

describe('across a process boundary (NATS)', () => {
  it('refuses a request that breaks the contract with VALIDATION_ERROR, and throws a reply that breaks it as a bug', async () => {
    const { caller, responder, close } = await transports.nats();
    try {
      const Echo = echoSubject(`${uniquePrefix()}.echo`);
      await responder.subscribe(Echo.subject, (message: BusMessage) => (parseRequest(Echo, message).text === 'wrong' ? { wrong: true } : { echoed: 'ok' }));
      // A caller of another build (or another language) sends what it likes: the handler's parse is the guard.
      await expect(callService(caller, Echo, { text: '' })).rejects.toMatchObject({ outcome: 'refused', code: 'VALIDATION_ERROR' });
      await expect(callService(caller, Echo, { text: 'wrong' })).rejects.toThrow(ContractViolationError);
    } finally {
      await close();
    }
  });
});

function echoSubject(subject: string) {
  return defineSubject(subject, z.object({ text: z.string().min(1) }), z.object({ echoed: z.string() }));
}
