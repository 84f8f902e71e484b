import { EventEmitter } from 'node:events';
import type { BinaryNode } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { classifyNetworkFailure } from '../network-failure.js';
import { KeepaliveClock, keepaliveStep } from './keepalive.js';

const INTERVAL = 20_000;
const stanza: BinaryNode = { tag: 'success', attrs: {} };

/** A socket as the clock sees it: frames come in on `ws`, pings and ends are recorded. */
function fakeSocket(onPing: () => void = () => undefined) {
  const ws = Object.assign(new EventEmitter(), { isOpen: true, isClosed: false });
  const ev = new EventEmitter();
  const pings: BinaryNode[] = [];
  const ends: unknown[] = [];
  let tag = 0;
  const socket = {
    ws,
    ev,
    sendNode: async (node: BinaryNode) => {
      onPing();
      pings.push(node);
    },
    generateMessageTag: () => `tag-${++tag}`,
    end: async (error: unknown) => {
      ends.push(error);
      ws.isOpen = false;
      ws.isClosed = true;
      ev.emit('connection.update', { connection: 'close' });
    },
  };
  return { socket: socket as never, ws, ev, pings, ends, frame: (frame: BinaryNode | Uint8Array = stanza) => ws.emit('frame', frame) };
}

describe('keepaliveStep', () => {
  const live = { live: true, lastFrameAt: 0, nextCheckAt: INTERVAL };
  it('waits until the check is due', () => {
    expect(keepaliveStep(live, INTERVAL - 1, INTERVAL)).toBe('wait');
    expect(keepaliveStep({ ...live, nextCheckAt: 2 * INTERVAL }, INTERVAL + 5_001, INTERVAL)).toBe('wait');
  });
  it('pings when due, and gives up once nothing came for more than the interval plus 5 s', () => {
    expect(keepaliveStep(live, INTERVAL, INTERVAL)).toBe('ping');
    expect(keepaliveStep({ ...live, nextCheckAt: INTERVAL + 5_000 }, INTERVAL + 5_000, INTERVAL)).toBe('ping');
    expect(keepaliveStep({ ...live, nextCheckAt: INTERVAL + 5_000 }, INTERVAL + 5_001, INTERVAL)).toBe('give_up');
    expect(keepaliveStep({ ...live, nextCheckAt: 2 * INTERVAL }, 2 * INTERVAL, INTERVAL)).toBe('give_up');
    expect(keepaliveStep({ ...live, lastFrameAt: INTERVAL + 1 }, 2 * INTERVAL, INTERVAL)).toBe('ping');
  });
  it('before the handshake is done, never pings and times out a step left unanswered for more than the connect timeout', () => {
    const connecting = { ...live, live: false, lastFrameAt: 1_000 };
    expect(keepaliveStep(connecting, INTERVAL, INTERVAL)).toBe('wait');
    expect(keepaliveStep(connecting, 21_000, INTERVAL)).toBe('wait');
    expect(keepaliveStep(connecting, 21_001, INTERVAL)).toBe('time_out');
    expect(keepaliveStep(connecting, 2_001, INTERVAL, 1_000)).toBe('time_out');
  });
});

describe('KeepaliveClock', () => {
  beforeEach(() => void vi.useFakeTimers({ now: 0 }));
  afterEach(() => void vi.useRealTimers());

  it('pings nothing during the handshake, then each socket once per interval', async () => {
    const clock = new KeepaliveClock(INTERVAL);
    const a = fakeSocket();
    clock.watch(a.socket);
    // A slow handshake: its check at 20 s finds frames but no stanza yet, so no ping.
    a.frame(new Uint8Array([1, 2, 3]));
    await vi.advanceTimersByTimeAsync(INTERVAL - 1_000);
    a.frame(new Uint8Array([4, 5, 6]));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(a.pings).toEqual([]);
    a.frame();
    for (let i = 0; i < 3; i++) {
      await vi.advanceTimersByTimeAsync(INTERVAL);
      a.frame();
    }
    expect(a.pings).toEqual([1, 2, 3].map((n) => ({ tag: 'iq', attrs: { id: `tag-${n}`, to: '@s.whatsapp.net', type: 'get', xmlns: 'w:p' }, content: [{ tag: 'ping', attrs: {} }] })));
    expect(a.ends).toEqual([]);
  });

  it('sends the pings that fall due within one tick together, on one timer', async () => {
    const clock = new KeepaliveClock(INTERVAL);
    const sockets = [fakeSocket(), fakeSocket(), fakeSocket()];
    for (const s of sockets) clock.watch(s.socket);
    // Handshakes at 100, 400 and 700 ms: their pings fall due at 20.1, 20.4 and 20.7 s, all
    // within the tick that ends at 21 s.
    for (const s of sockets) {
      await vi.advanceTimersByTimeAsync(s === sockets[0] ? 100 : 300);
      s.frame();
    }
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(21_000 - 700 - 1);
    expect(sockets.map((s) => s.pings.length)).toEqual([0, 0, 0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sockets.map((s) => s.pings.length)).toEqual([1, 1, 1]);
  });

  it('counts the handshake\'s frames as signs of life', async () => {
    const clock = new KeepaliveClock(INTERVAL);
    const s = fakeSocket();
    clock.watch(s.socket);
    for (let i = 0; i < 6; i++) {
      s.frame(new Uint8Array([i]));
      await vi.advanceTimersByTimeAsync(10_000);
    }
    expect([s.pings, s.ends]).toEqual([[], []]);
  });

  it('times out a handshake step left unanswered for 20 s, without pinging it', async () => {
    const clock = new KeepaliveClock(INTERVAL);
    const s = fakeSocket();
    clock.watch(s.socket);
    s.frame(new Uint8Array([1]));
    await vi.advanceTimersByTimeAsync(20_000);
    expect(s.ends).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(s.pings).toEqual([]);
    expect(s.ends).toHaveLength(1);
    // Baileys' own handshake timeout: a drop to reconnect from, not a network failure of its own kind.
    expect(s.ends[0]).toMatchObject({ message: 'Timed Out', output: { statusCode: 408 } });
    expect(classifyNetworkFailure(s.ends[0], INTERVAL)).toBeUndefined();
  });

  it('times out a connection attempt that gets no answer at all (the WebSocket upgrade unanswered)', async () => {
    const clock = new KeepaliveClock(INTERVAL, 5_000);
    const s = fakeSocket();
    clock.watch(s.socket);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(s.ends).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(s.ends).toEqual([expect.objectContaining({ message: 'Timed Out' })]);
    expect(clock.size).toBe(0);
  });

  it('writes at most 100 pings per turn of the event loop, the rest in the turns right after', async () => {
    const clock = new KeepaliveClock(INTERVAL);
    const perTurn: number[] = [];
    const counted = () => {
      // The first ping of a turn opens a count that a microtask closes once the turn is over.
      if (perTurn.length === 0 || perTurn.at(-1)! < 0) {
        perTurn.push(0);
        queueMicrotask(() => void perTurn.push(-1));
      }
      perTurn[perTurn.length - 1]! += 1;
    };
    const sockets = Array.from({ length: 250 }, () => fakeSocket(counted));
    for (const s of sockets) {
      clock.watch(s.socket);
      s.frame();
    }
    await vi.advanceTimersByTimeAsync(INTERVAL + 1_000);
    expect(perTurn.filter((n) => n >= 0)).toEqual([100, 100, 50]);
    expect(sockets.every((s) => s.pings.length === 1)).toBe(true);
  });

  it('ends a socket whose pings go unanswered with the error the driver reads as a silent network', async () => {
    const clock = new KeepaliveClock(INTERVAL);
    const s = fakeSocket();
    clock.watch(s.socket);
    s.frame();
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(s.pings).toHaveLength(1);
    expect(s.ends).toEqual([]);
    await vi.advanceTimersByTimeAsync(INTERVAL);
    expect(s.pings).toHaveLength(1);
    expect(s.ends).toHaveLength(1);
    expect(classifyNetworkFailure(s.ends[0], INTERVAL)).toEqual({
      cause: 'silent', detail: 'the chat network stopped answering an open connection: nothing received for over 25 s, keepalive pings unanswered',
    });
    expect((s.ends[0] as { output: { statusCode: number } }).output.statusCode).toBe(408);
  });

  it('forgets closed sockets and stops its timer when none is left', async () => {
    const clock = new KeepaliveClock(INTERVAL);
    const a = fakeSocket();
    const b = fakeSocket();
    clock.watch(a.socket);
    clock.watch(b.socket);
    a.frame();
    b.frame();
    a.ev.emit('connection.update', { connection: 'close' });
    expect(clock.size).toBe(1);
    // Closed without a close event reaching the clock: dropped at the next tick.
    b.ws.isClosed = true;
    b.ws.isOpen = false;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(clock.size).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(2 * INTERVAL);
    expect([a.pings, b.pings, a.ends, b.ends]).toEqual([[], [], [], []]);

    // A socket opened later (a reconnect) starts the timer again.
    const c = fakeSocket();
    clock.watch(c.socket);
    c.frame();
    await vi.advanceTimersByTimeAsync(INTERVAL + 1_000);
    expect(c.pings).toHaveLength(1);
  });

  it('does not write on a socket that is no longer open', async () => {
    const clock = new KeepaliveClock(INTERVAL);
    const s = fakeSocket();
    clock.watch(s.socket);
    s.frame();
    s.ws.isOpen = false;
    await vi.advanceTimersByTimeAsync(INTERVAL + 1_000);
    expect([s.pings, s.ends]).toEqual([[], []]);
  });
});
