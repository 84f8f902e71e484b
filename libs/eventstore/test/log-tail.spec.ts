import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../src/event-store.js';
import { NotifiedLogTail } from '../src/log-tail.js';
import { CountingLog } from './counting-log.js';

const positions = (page: readonly RecordedEvent[]) => page.map((event) => Number(event.position));

describe('NotifiedLogTail', () => {
  it("hands over this process's appends to a reader that asks on from where it got to, and reads a re-read from the store", async () => {
    const log = new CountingLog();
    const tail = new NotifiedLogTail(log.source('account'));
    log.append('account');
    expect(positions(await tail.readAfter(-1n, 10))).toEqual([1]);
    log.append('usage');
    log.append('account');
    expect(positions(await tail.readAfter(1n, 10))).toEqual([3]);
    expect(log.reads).toBe(1);
    // Asked again from before where it got to (a client that lost a page): only the store has those.
    expect(positions(await tail.readAfter(0n, 10))).toEqual([1, 3]);
    expect(log.reads).toBe(2);
    // Each handed-over event is its own object, as a read's would be.
    log.append('account');
    const [handed] = await tail.readAfter(3n, 10);
    expect(handed!.data).toEqual({ n: 4 });
    expect(log.reads).toBe(2);
  });

  it("reads the store when another writer's event may lie between, was announced, or nothing of its own came", async () => {
    const log = new CountingLog();
    const tail = new NotifiedLogTail(log.source());
    log.append('account');
    await tail.readAfter(-1n, 10);
    // A gap in the positions: someone else wrote between (unannounced).
    log.appendForeign('account');
    log.append('account');
    expect(positions(await tail.readAfter(1n, 10))).toEqual([2, 3]);
    expect(log.reads).toBe(2);
    // After this process's last append, only an announcement tells.
    log.appendForeign('usage');
    log.notifier.notify('usage');
    log.append('account');
    expect(positions(await tail.readAfter(3n, 10))).toEqual([4, 5]);
    expect(log.reads).toBe(3);
    // Nothing of its own since: maybe an unannounced write, so the store is asked (and has it).
    log.appendForeign('account');
    expect(positions(await tail.readAfter(5n, 10))).toEqual([6]);
    expect(log.reads).toBe(4);
    // More than the page asked for: the store cuts the page.
    log.append('account');
    log.append('account');
    expect(positions(await tail.readAfter(6n, 1))).toEqual([7]);
    expect(log.reads).toBe(5);
  });

  it('vouches for every event up to a head read just before only when its own appends reach it', async () => {
    const log = new CountingLog();
    const tail = new NotifiedLogTail(log.source('account'));
    log.append('account');
    await tail.readAfter(-1n, 10);
    // Unannounced, after this process's last append: a head read now shows it, so the store is read.
    log.append('usage');
    log.appendForeign('account');
    expect(positions(await tail.readAfter(1n, 10, 3n))).toEqual([3]);
    expect(log.reads).toBe(2);
    // Its own appends reach the head: exact, even with nothing of the category among them.
    log.append('usage');
    expect(positions(await tail.readAfter(3n, 10, 4n))).toEqual([]);
    log.append('account');
    expect(positions(await tail.readAfter(3n, 10, 5n))).toEqual([5]);
    expect(log.reads).toBe(2);
  });

  it("keeps another writer's announcement unseen when the read it forced failed: the next read asks the store again", async () => {
    const log = new CountingLog();
    const source = log.source();
    let failNext = false;
    const readAfter = source.readAfter;
    const tail = new NotifiedLogTail({
      ...source,
      readAfter: (after, limit) => {
        if (!failNext) return readAfter(after, limit);
        failNext = false;
        throw new Error('connection lost');
      },
    });
    log.append('account');
    await tail.readAfter(-1n, 10);
    log.append('account');
    log.appendForeign('account');
    log.notifier.notify('account');
    failNext = true;
    await expect(tail.readAfter(1n, 10)).rejects.toThrow('connection lost');
    // Retried: its own append alone would look complete, but the announced event lies after it.
    expect(positions(await tail.readAfter(1n, 10))).toEqual([2, 3]);
  });
});
