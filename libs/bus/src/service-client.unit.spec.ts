import { ApiError, defineSubject } from '@switchboard/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { InProcessBus } from './in-process-bus.js';
import { callService, ContractViolationError, ServiceCallError } from './service-client.js';

const Echo = defineSubject('sb.v1.test.echo', z.object({ text: z.string().min(1) }), z.object({ echoed: z.string() }));
const silent = { error() {}, warn() {}, info() {} };

let bus: InProcessBus;
beforeEach(() => {
  bus = new InProcessBus({ logger: silent });
});
afterEach(async () => {
  await bus.close();
});

describe('callService, the one way to call another service', () => {
  it('answers the reply parsed, with the standard headers set', async () => {
    let seen: Record<string, string> = {};
    await bus.subscribe(Echo.subject, (message: { data: { text: string }; headers: Record<string, string> }) => {
      seen = message.headers;
      return { echoed: message.data.text, internal: 'stripped' };
    });
    const reply = await callService(bus, Echo, { text: 'hi' }, { correlationId: 'req-1', causationId: 'evt-9', accountId: 'acc_1' });
    expect(reply).toEqual({ echoed: 'hi' });
    expect(seen).toMatchObject({ 'correlation-id': 'req-1', 'causation-id': 'evt-9', 'account-id': 'acc_1' });
  });

  it('keeps a named refusal\'s code, message and details, as refused', async () => {
    await bus.subscribe(Echo.subject, () => {
      throw new ApiError('SESSION_LIMIT_REACHED', 'The plan allows 1 concurrent session.', { limit: 1, used: 1 });
    });
    const failure = await callService(bus, Echo, { text: 'hi' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceCallError);
    expect(failure).toMatchObject({ outcome: 'refused', code: 'SESSION_LIMIT_REACHED', message: 'The plan allows 1 concurrent session.', details: { limit: 1, used: 1 }, httpStatus: 429, subject: Echo.subject });
  });

  it('says nobody got it when nobody listens, and maybe when the deadline passed', async () => {
    await expect(callService(bus, Echo, { text: 'hi' })).rejects.toMatchObject({ outcome: 'not_delivered', code: 'SERVICE_UNAVAILABLE' });
    await bus.subscribe(Echo.subject, () => new Promise(() => undefined));
    await expect(callService(bus, Echo, { text: 'hi' }, { timeoutMs: 50 })).rejects.toMatchObject({ outcome: 'unknown', code: 'UPSTREAM_TIMEOUT' });
  });

  it('throws a bug on either side as it is: the other side\'s internal error, a broken reply, a broken request', async () => {
    await bus.subscribe(Echo.subject, (message: { data: { text: string } }) => {
      if (message.data.text === 'crash') throw new Error('boom');
      return { wrong: true };
    });
    const internal = await callService(bus, Echo, { text: 'crash' }).catch((error: unknown) => error);
    expect(internal).not.toBeInstanceOf(ServiceCallError);
    expect(internal).toMatchObject({ name: 'RemoteError', code: 'INTERNAL_ERROR' });
    await expect(callService(bus, Echo, { text: 'hi' })).rejects.toThrow(ContractViolationError);
    await expect(callService(bus, Echo, { text: '' })).rejects.toThrow(/request of sb\.v1\.test\.echo breaks its contract: text/);
  });
});
