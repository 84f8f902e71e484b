import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { ChatDriver } from '../chat/index.js';
import { firstOutcome, ResumeQueue } from './resume-queue.js';

/** A queue whose turns last until the test ends them, recording who had a turn, in order. */
function queueOf(concurrency: number) {
  const turns: string[] = [];
  const ends = new Map<string, () => void>();
  const drained: number[] = [];
  const queue = new ResumeQueue({
    concurrency,
    resume: ({ sessionId }) => {
      turns.push(sessionId);
      return new Promise<void>((resolve) => ends.set(sessionId, resolve));
    },
    onError: () => undefined,
    onDrained: (count) => drained.push(count),
  });
  const end = async (sessionId: string) => {
    ends.get(sessionId)!();
    // The turn's end is seen a few microtasks later.
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return { queue, turns, end, drained };
}

describe('the resume queue', () => {
  it('gives `concurrency` sessions their turn at once, the next one as a turn ends', async () => {
    const { queue, turns, end } = queueOf(2);
    for (const id of ['a', 'b', 'c', 'd']) queue.add(id, 'acc');
    expect(turns).toEqual(['a', 'b']);
    expect(queue.ids()).toEqual(['c', 'd']);
    await end('b');
    expect(turns).toEqual(['a', 'b', 'c']);
    expect(queue.size).toBe(1);
  });

  it('takes a session a request waits for before the others still waiting', async () => {
    const { queue, turns, end } = queueOf(1);
    for (const id of ['a', 'b', 'c', 'd']) queue.add(id, 'acc');
    queue.hurry('d');
    queue.hurry('a'); // in its turn already: nothing to hurry
    await end('a');
    expect(turns).toEqual(['a', 'd']);
  });

  it('never gives a turn to a session removed (let go of, ended) or queued after a stop', async () => {
    const { queue, turns, end } = queueOf(1);
    for (const id of ['a', 'b', 'c']) queue.add(id, 'acc');
    queue.remove('b');
    expect(queue.has('b')).toBe(false);
    await end('a');
    expect(turns).toEqual(['a', 'c']);
    queue.stop();
    queue.add('d', 'acc');
    await end('c');
    expect(turns).toEqual(['a', 'c']);
    expect(queue.size).toBe(0);
  });

  it('queues a session once, and says when everyone queued had a turn', async () => {
    const { queue, turns, end, drained } = queueOf(2);
    queue.add('a', 'acc');
    queue.add('a', 'acc');
    queue.add('b', 'acc');
    queue.add('b', 'acc');
    await end('a');
    expect(drained).toEqual([]);
    await end('b');
    expect(turns).toEqual(['a', 'b']);
    expect(drained).toEqual([2]);
  });
});

describe("a resume's first outcome", () => {
  const driverEmitter = () => new EventEmitter() as unknown as ChatDriver & EventEmitter;

  it('comes with the first report of the connection, and stops listening', async () => {
    const driver = driverEmitter();
    const outcome = firstOutcome(driver, 60_000);
    driver.emit('disconnected', { reason: 'connection_lost', willReconnect: true });
    await outcome.done;
    expect(driver.listenerCount('connected') + driver.listenerCount('disconnected') + driver.listenerCount('qr')).toBe(0);
  });

  it('comes after the timeout when the network never answers', async () => {
    const started = performance.now();
    await firstOutcome(driverEmitter(), 30).done;
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });
});
