import { inMemorySpans, runInSpan, SpanKind, startTelemetry } from '@switchboard/telemetry';
import type { TelemetryHandle } from '@switchboard/telemetry';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Bus, BusMessage } from '../src/bus.js';
import { BusUnavailableError, DeadlineExceededError, NoResponderError, RemoteError } from '../src/errors.js';
import { eventually, namedError, sleep, uniquePrefix } from './support.js';

/** Endpoints on one bus: the same instance in-process, one connection each over NATS. */
export interface BusFixture {
  connect(): Promise<Bus>;
  close(): Promise<void>;
}

/** The semantics both transports promise; run once per transport. */
export function busContract(name: string, createFixture: () => Promise<BusFixture>): void {
  describe(`${name} bus contract`, () => {
    const spans = inMemorySpans();
    let telemetry: TelemetryHandle;
    let fixture: BusFixture;
    let caller: Bus;
    let responder: Bus;
    let subject: (verb: string) => string;

    beforeAll(() => {
      telemetry = startTelemetry({ serviceName: `bus-contract-${name}`, env: {}, spanProcessors: [spans.processor] });
    });
    afterAll(() => telemetry.shutdown());
    beforeEach(async () => {
      fixture = await createFixture();
      [caller, responder] = [await fixture.connect(), await fixture.connect()];
      const prefix = uniquePrefix();
      subject = (verb) => `${prefix}.${verb}`;
      spans.reset();
    });
    afterEach(() => fixture.close());

    it('replies to a request and carries headers both ways', async () => {
      const seen: BusMessage[] = [];
      await responder.subscribe(subject('quota.reserve'), (message: BusMessage<{ units: number }>) => {
        seen.push(message);
        return { reserved: message.data.units };
      });
      const reply = await caller.request(subject('quota.reserve'), { units: 2 }, {
        timeoutMs: 2_000,
        headers: { 'account-id': 'acc_1', 'Correlation-Id': 'corr-1' },
      });
      expect(reply.data).toEqual({ reserved: 2 });
      expect(reply.headers['correlation-id']).toBe('corr-1');
      expect(seen[0]?.subject).toBe(subject('quota.reserve'));
      expect(seen[0]?.headers).toMatchObject({ 'account-id': 'acc_1', 'correlation-id': 'corr-1' });
    });

    it('fails with DeadlineExceededError when the handler is slower than the deadline', async () => {
      await responder.subscribe(subject('slow'), () => sleep(600));
      const started = Date.now();
      await expect(caller.request(subject('slow'), {}, { timeoutMs: 150 })).rejects.toBeInstanceOf(DeadlineExceededError);
      expect(Date.now() - started).toBeLessThan(500);
    });

    it('fails fast with NoResponderError when nobody listens', async () => {
      const started = Date.now();
      await expect(caller.request(subject('nobody'), {}, { timeoutMs: 5_000 })).rejects.toBeInstanceOf(NoResponderError);
      expect(Date.now() - started).toBeLessThan(500);
    });

    it('stops delivering after unsubscribe', async () => {
      const subscription = await responder.subscribe(subject('gone'), () => 'here');
      await expect(caller.request(subject('gone'), {}, { timeoutMs: 2_000 })).resolves.toMatchObject({ data: 'here' });
      await subscription.unsubscribe();
      await expect(caller.request(subject('gone'), {}, { timeoutMs: 2_000 })).rejects.toBeInstanceOf(NoResponderError);
    });

    it('says a subject someone listens to (through a wildcard too) may be heard', async () => {
      await responder.subscribe(subject('evt.usage.*'), () => undefined);
      // Checked from the subscriber's own side, where the in-process bus keeps its subscriptions.
      expect(responder.mayBeHeard(subject('evt.usage.DailyQuotaReserved'))).toBe(true);
    });

    it('fans a published event out to every subscriber, wildcards included', async () => {
      const received: string[] = [];
      await responder.subscribe(subject('evt.session.SessionConnected'), () => void received.push('projection'));
      await responder.subscribe(subject('evt.session.SessionConnected'), () => void received.push('webhooks'));
      await responder.subscribe(subject('evt.session.*'), () => void received.push('any-session-event'));
      await responder.subscribe(subject('evt.>'), () => void received.push('audit'));
      await caller.publish(subject('evt.session.SessionConnected'), { sessionId: 'ses_1' });
      await eventually(() => expect(received.sort()).toEqual(['any-session-event', 'audit', 'projection', 'webhooks']));
    });

    it('hands each message to exactly one member of a queue group', async () => {
      const handledBy = new Map<string, number[]>([['a', []], ['b', []], ['c', []]]);
      for (const member of handledBy.keys()) {
        await responder.subscribe(subject('work'), (message: BusMessage<number>) => {
          handledBy.get(member)?.push(message.data);
          return member;
        }, { queue: 'workers' });
      }
      const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => caller.request(subject('work'), i, { timeoutMs: 2_000 })));
      for (let i = 0; i < 30; i++) await caller.publish(subject('work'), 100 + i);
      await eventually(() => expect([...handledBy.values()].flat()).toHaveLength(60));
      await sleep(50);
      const handled = [...handledBy.values()].flat().sort((x, y) => x - y);
      expect(handled).toEqual([...Array.from({ length: 30 }, (_, i) => i), ...Array.from({ length: 30 }, (_, i) => 100 + i)]);
      for (const [member, messages] of handledBy) expect(messages.length, `member ${member}`).toBeGreaterThan(0);
      expect(replies.map((reply) => reply.data)).toEqual(replies.map((_, i) => [...handledBy].find(([, m]) => m.includes(i))?.[0]));
    });

    it('returns a named handler error as a RemoteError with its code, message and details', async () => {
      await responder.subscribe(subject('quota.reserve'), () => {
        throw namedError('QUOTA_EXCEEDED', 'daily quota used up', { limit: 100 });
      });
      const failure = await caller.request(subject('quota.reserve'), {}, { timeoutMs: 2_000 }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(RemoteError);
      expect(failure).toMatchObject({ code: 'QUOTA_EXCEEDED', message: 'daily quota used up', details: { limit: 100 } });
    });

    it('turns any other handler failure into INTERNAL_ERROR without leaking its message', async () => {
      await responder.subscribe(subject('broken'), async () => {
        throw new TypeError('cannot read password of undefined at /srv/app/secret.ts:12');
      });
      const failure = await caller.request(subject('broken'), {}, { timeoutMs: 2_000 }).catch((error: unknown) => error);
      expect(failure).toMatchObject({ name: 'RemoteError', code: 'INTERNAL_ERROR' });
      expect(JSON.stringify({ ...(failure as object), message: (failure as Error).message })).not.toMatch(/password|secret\.ts/);
    });

    it('makes the consumer span a child of the producer span, in the same trace', async () => {
      let inboundTraceparent: string | undefined;
      await responder.subscribe(subject('traced'), (message) => {
        inboundTraceparent = message.headers['traceparent'];
        return 'ok';
      });
      await runInSpan('POST /v1/messages', { kind: SpanKind.SERVER }, () => caller.request(subject('traced'), {}, { timeoutMs: 2_000 }));
      const finished = await spans.finished();
      const producer = finished.find((span) => span.name === `send ${subject('traced')}`);
      const consumer = finished.find((span) => span.name === `process ${subject('traced')}`);
      expect(producer?.kind).toBe(SpanKind.PRODUCER);
      expect(consumer?.kind).toBe(SpanKind.CONSUMER);
      expect(consumer?.spanContext().traceId).toBe(producer?.spanContext().traceId);
      expect(consumer?.parentSpanContext?.spanId).toBe(producer?.spanContext().spanId);
      expect(inboundTraceparent).toContain(producer?.spanContext().spanId);
    });

    it('passes correlation-id and account-id on to requests made by a handler', async () => {
      const downstream: BusMessage[] = [];
      await responder.subscribe(subject('quota.reserve'), (message) => void downstream.push(message));
      await responder.subscribe(subject('messaging.send'), () => responder.request(subject('quota.reserve'), {}, { timeoutMs: 2_000 }).then(() => 'sent'));
      await caller.request(subject('messaging.send'), {}, { timeoutMs: 2_000, headers: { 'account-id': 'acc_9', 'correlation-id': 'corr-9' } });
      expect(downstream[0]?.headers).toMatchObject({ 'account-id': 'acc_9', 'correlation-id': 'corr-9' });
    });

    it('lets a running handler reply when its bus closes', async () => {
      let started = false;
      await responder.subscribe(subject('slow.reserve'), async () => {
        started = true;
        await sleep(200);
        return 'reserved';
      });
      const reply = caller.request(subject('slow.reserve'), {}, { timeoutMs: 2_000 });
      await eventually(() => expect(started).toBe(true));
      await responder.close();
      await expect(reply).resolves.toMatchObject({ data: 'reserved' });
    });

    it('refuses work with BusUnavailableError once closed', async () => {
      await caller.close();
      expect(caller.isConnected()).toBe(false);
      await expect(caller.request(subject('any'), {}, { timeoutMs: 1_000 })).rejects.toBeInstanceOf(BusUnavailableError);
      await expect(caller.publish(subject('any'), {})).rejects.toBeInstanceOf(BusUnavailableError);
    });
  });
}
