/**
 * The order in which stored sessions get their connections back (after a start, or taken over
 * from another replica), as pure decisions: opening thousands of sockets and handshakes at once
 * starves the event loop, so a bounded number take their turn at a time.
 */

/** A stored session waiting for its connection to be opened again from its credentials. */
export interface WaitingResume {
  sessionId: string;
  accountId: string;
}

/**
 * A turn lasts until the connection's first outcome (online, refused, dropped) or this long: a
 * network that swallows handshakes must not hold the queue up for good.
 */
export const RESUME_TURN_TIMEOUT_MS = 10_000;

/**
 * Whose turn it is now: as many as there are free places (`concurrency - running`), first the
 * sessions a request is waiting for (in the order they were asked for), then the others in the
 * order they were queued.
 */
export function nextTurns<T>(urgent: Iterable<T>, queued: Iterable<T>, running: number, concurrency: number): T[] {
  const free = concurrency - running;
  const turns: T[] = [];
  for (const line of [urgent, queued]) {
    for (const waiting of line) {
      if (turns.length >= free) return turns;
      turns.push(waiting);
    }
  }
  return turns;
}
