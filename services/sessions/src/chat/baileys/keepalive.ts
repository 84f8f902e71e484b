import { DisconnectReason, S_WHATSAPP_NET } from '@whiskeysockets/baileys';
import type { BinaryNode, WASocket } from '@whiskeysockets/baileys';
import { KEEPALIVE_GAVE_UP, KEEPALIVE_SLACK_MS } from '../network-failure.js';

/**
 * How often each socket pings the network (an `iq xmlns="w:p"`). A socket that has received
 * nothing for this plus 5 s at one of its pings is ended as lost (Baileys' own rule, socket.js
 * `startKeepAliveRequest`): a socket that goes silent is found 20 to 42 s later (a ping goes out
 * up to one tick late), within the 60 s promised (Baileys' own 30 s would take up to 60). WhatsApp
 * Web and whatsmeow ping every 20 to 30 s (keepalive.go).
 */
export const DEFAULT_KEEPALIVE_INTERVAL_MS = 20_000;
/** The clock's tick: a ping is late by up to this, so that the pings due within it go out together. */
const MAX_TICK_MS = 1_000;
/** Pings written in one turn of the event loop at most (a few milliseconds of work). */
const PINGS_PER_TURN = 100;
/**
 * Baileys' own keepalive, switched off (its interval: the longest timer Node takes, about 24
 * days): one timer per socket wakes an idle process once per socket and interval, which with
 * many sessions costs more than the pings themselves (see `KeepaliveClock`).
 */
export const BAILEYS_KEEPALIVE_OFF_MS = 2 ** 31 - 1;
/**
 * How long a connection attempt may wait for each step of its handshake (the WebSocket upgrade,
 * each Noise message, the first stanza): Baileys' own connect timeout, which it cannot keep
 * without a timer on every frame written (see `socketConfig`).
 */
export const CONNECT_TIMEOUT_MS = 20_000;

/** One socket as the clock sees it. */
export interface KeepaliveState {
  /** The handshake is done (a stanza came in): from then on the socket is pinged. */
  live: boolean;
  /** When its last frame came in. */
  lastFrameAt: number;
  /** Once live, when it is looked at next: pinged, or given up if silent. */
  nextCheckAt: number;
}

/**
 * `give_up`: a live socket whose last ping went unanswered; `time_out`: a handshake that got no
 * answer within the connect timeout.
 */
export type KeepaliveStep = 'wait' | 'ping' | 'give_up' | 'time_out';

/**
 * What a tick does with a socket. Before its handshake is done: nothing until it has waited more
 * than `connectTimeoutMs` for a frame, then it times out (looked at every tick). Once live:
 * nothing before its check is due; at a due check, gives it up after more than an interval plus
 * the slack without a frame (its last ping went unanswered), else pings it.
 */
export function keepaliveStep(state: KeepaliveState, now: number, intervalMs: number, connectTimeoutMs = CONNECT_TIMEOUT_MS): KeepaliveStep {
  if (!state.live) return now - state.lastFrameAt > connectTimeoutMs ? 'time_out' : 'wait';
  if (now < state.nextCheckAt) return 'wait';
  if (now - state.lastFrameAt > intervalMs + KEEPALIVE_SLACK_MS) return 'give_up';
  return 'ping';
}

/** The socket's parts the clock uses (`ws` is typed loosely by Baileys). */
type WatchedSocket = Pick<WASocket, 'ev' | 'end' | 'sendNode' | 'generateMessageTag'> & {
  ws: { on(event: 'frame', listener: (frame: BinaryNode | Uint8Array) => void): unknown; isOpen: boolean; isClosed: boolean };
};

/**
 * The keepalive of every socket of a process, on one timer. Each socket is pinged once per
 * interval and given up by the same rule as Baileys' keepalive, but the pings due within one tick
 * go out in one turn of the event loop, and their answers come back together: an idle process
 * with a thousand sessions wakes about once a second instead of fifty times (each wake-up of an
 * idle process costs more CPU than the ping it sends). The timer runs only while a socket is watched.
 */
export class KeepaliveClock {
  readonly intervalMs: number;
  readonly #connectTimeoutMs: number;
  readonly #tickMs: number;
  readonly #watched = new Map<WatchedSocket, KeepaliveState>();
  #timer: NodeJS.Timeout | undefined;

  constructor(intervalMs = DEFAULT_KEEPALIVE_INTERVAL_MS, connectTimeoutMs = CONNECT_TIMEOUT_MS) {
    this.intervalMs = intervalMs;
    this.#connectTimeoutMs = connectTimeoutMs;
    this.#tickMs = Math.min(MAX_TICK_MS, Math.ceil(intervalMs / 4));
  }

  /**
   * Keeps `socket` alive from its handshake until it closes. Before that, it times its handshake:
   * a step that gets no answer within the connect timeout ends the attempt.
   */
  watch(socket: WatchedSocket): void {
    const watchedAt = performance.now();
    const state: KeepaliveState = { live: false, lastFrameAt: watchedAt, nextCheckAt: watchedAt + this.intervalMs };
    this.#watched.set(socket, state);
    socket.ws.on('frame', (frame) => {
      state.lastFrameAt = performance.now();
      // The handshake's frames are raw bytes; the first stanza comes after it (Baileys starts its
      // keepalive at the same point, and nothing may be written on the socket before).
      if (!state.live && !(frame instanceof Uint8Array)) {
        state.live = true;
        state.nextCheckAt = state.lastFrameAt + this.intervalMs;
      }
    });
    socket.ev.on('connection.update', ({ connection }) => {
      if (connection === 'close') this.#forget(socket);
    });
    this.#timer ??= setInterval(() => this.#tick(), this.#tickMs).unref();
  }

  /** Sockets watched (for tests and metrics). */
  get size(): number {
    return this.#watched.size;
  }

  #tick(): void {
    // A monotonic clock: a wall clock stepped back (NTP, a restored VM) must not pause the pings.
    const now = performance.now();
    const due: WatchedSocket[] = [];
    for (const [socket, state] of this.#watched) {
      // Closed without a close event reaching us (ended before its first update): nothing to keep alive.
      if (socket.ws.isClosed) {
        this.#forget(socket);
        continue;
      }
      const step = keepaliveStep(state, now, this.intervalMs, this.#connectTimeoutMs);
      if (step === 'wait') continue;
      if (step === 'give_up' || step === 'time_out') {
        this.#forget(socket);
        void socket.end((step === 'give_up' ? connectionLost() : handshakeTimedOut()) as never);
        continue;
      }
      state.nextCheckAt = now + this.intervalMs;
      due.push(socket);
    }
    this.#ping(due, 0);
  }

  /**
   * Pings `sockets` from `from` on, a bounded number per turn of the event loop: with 10,000
   * sessions a tick has 500 due, and writing them all at once would hold up every request behind
   * them. The next turn follows at once (no sleep, no extra wake-up).
   */
  #ping(sockets: readonly WatchedSocket[], from: number): void {
    const to = Math.min(sockets.length, from + PINGS_PER_TURN);
    for (const socket of sockets.slice(from, to)) {
      // Not awaited for an answer: any frame that comes in proves the socket alive. A failed write
      // means the socket is closing, and its close is reported by Baileys.
      if (socket.ws.isOpen) socket.sendNode(pingNode(socket.generateMessageTag())).catch(() => undefined);
    }
    if (to < sockets.length) setImmediate(() => this.#ping(sockets, to));
  }

  #forget(socket: WatchedSocket): void {
    this.#watched.delete(socket);
    if (this.#watched.size > 0 || this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}

/**
 * What Baileys' keepalive ends a silent socket with (a Boom with this message and status): the
 * driver reads it as a silent network (network-failure.ts) and reconnects.
 */
function connectionLost(): Error {
  return Object.assign(new Error(KEEPALIVE_GAVE_UP), { output: { statusCode: DisconnectReason.connectionLost } });
}

/**
 * What Baileys ends a handshake step that got no answer with (`awaitNextMessage`: a Boom "Timed
 * Out", 408): not a network failure of its own kind, so the driver reconnects as it did then.
 */
function handshakeTimedOut(): Error {
  return Object.assign(new Error('Timed Out'), { output: { statusCode: DisconnectReason.timedOut } });
}

/** The ping Baileys and WhatsApp Web send. */
function pingNode(id: string): BinaryNode {
  return { tag: 'iq', attrs: { id, to: S_WHATSAPP_NET, type: 'get', xmlns: 'w:p' }, content: [{ tag: 'ping', attrs: {} }] };
}

/** How long a closing socket waits for the network to answer its close before it is cut. */
const CLOSE_HANDSHAKE_MS = 2_000;

/** Baileys' WebSocket client as far as closing goes (`socket` is protected in its typings). */
interface ClosableClient {
  close(): Promise<void>;
  socket: { terminate(): void } | null;
}

/**
 * Bounds the close of `socket`: Baileys' `end()` awaits the WebSocket's closing handshake before
 * it reports the close, and on a dead path (just what the keepalive found) nothing answers, so
 * `ws` would wait out its 30 s close timeout (not settable through Baileys) before the driver could
 * reconnect. After `limitMs` the TCP connection is cut instead.
 */
export function boundCloseHandshake(socket: WASocket, limitMs = CLOSE_HANDSHAKE_MS): void {
  const client = socket.ws as unknown as ClosableClient;
  const close = client.close.bind(client);
  client.close = async () => {
    const raw = client.socket;
    const cut = setTimeout(() => raw?.terminate(), limitMs);
    try {
      await close();
    } finally {
      clearTimeout(cut);
    }
  };
}
