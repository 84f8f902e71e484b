import { describe, expect, it } from 'vitest';
import { InProcessBus } from '../src/in-process-bus.js';
import { busContract } from './bus.contract.js';
import { eventually } from './support.js';

busContract('in-process', async () => {
  const bus = new InProcessBus();
  return { connect: async () => bus, close: () => bus.close() };
});

describe('InProcessBus', () => {
  it('shares a queue group round-robin, in subscription order', async () => {
    const bus = new InProcessBus();
    const order: string[] = [];
    for (const member of ['a', 'b', 'c']) await bus.subscribe('work', () => void order.push(member), { queue: 'workers' });
    for (let i = 0; i < 6; i++) await bus.request('work', i, { timeoutMs: 1_000 });
    expect(order).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('knows when nobody can hear a subject: before anyone subscribes, and after the last one left', async () => {
    const bus = new InProcessBus();
    const subject = 'sb.v1.evt.usage.DailyQuotaReserved';
    expect(bus.mayBeHeard(subject)).toBe(false);
    const other = await bus.subscribe('sb.v1.evt.account.*', () => undefined);
    expect(bus.mayBeHeard(subject)).toBe(false);
    const all = await bus.subscribe('sb.v1.evt.>', () => undefined, { queue: 'audit' });
    expect(bus.mayBeHeard(subject)).toBe(true);
    await all.unsubscribe();
    expect(bus.mayBeHeard(subject)).toBe(false);
    await other.unsubscribe();
  });

  it('logs a failing event handler instead of failing the publisher', async () => {
    const logged: object[] = [];
    const capture = { error: (fields: object) => void logged.push(fields), warn: () => {}, info: () => {} };
    const bus = new InProcessBus({ logger: capture });
    await bus.subscribe('sb.v1.evt.session.SessionConnected', () => {
      throw Object.assign(new Error('projection is behind'), { code: 'PROJECTION_BEHIND' });
    });
    await expect(bus.publish('sb.v1.evt.session.SessionConnected', { sessionId: 'ses_1' })).resolves.toBeUndefined();
    await eventually(() => expect(logged).toEqual([
      { subject: 'sb.v1.evt.session.SessionConnected', error: { code: 'PROJECTION_BEHIND', message: 'projection is behind' } },
    ]));
  });

  it('hands payloads and replies over as they are, marked local (nothing serialised within one process)', async () => {
    const bus = new InProcessBus();
    const sent = { items: [1, 2, 3] };
    const answer = { total: 6 };
    let received: { data: unknown; local?: boolean } | undefined;
    await bus.subscribe('sum', (message: { data: { items: number[] }; local?: boolean }) => {
      received = message;
      return answer;
    });
    const reply = await bus.request('sum', sent, { timeoutMs: 1_000 });
    expect([received?.data, received?.local]).toEqual([sent, true]);
    expect(received?.data).toBe(sent);
    expect([reply.data, reply.local]).toEqual([answer, true]);
    expect(reply.data).toBe(answer);
  });
});
