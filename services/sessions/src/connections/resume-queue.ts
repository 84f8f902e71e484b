import type { ChatDriver } from '../chat/index.js';
import { nextTurns } from './resume-turns.js';
import type { WaitingResume } from './resume-turns.js';

export interface ResumeQueueOptions {
  /** Most sessions in their turn at once (`SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY`). */
  concurrency: number;
  /** A session's turn: opens its connection; resolves once the turn is over. */
  resume(waiting: WaitingResume): Promise<void>;
  onError(error: unknown, sessionId: string): void;
  /** The queue ran empty: `count` sessions had their turn, in `ms` since the first was queued. */
  onDrained?(count: number, ms: number): void;
}

/**
 * Stored sessions waiting to resume, `concurrency` in their turn at a time (resume-turns.ts says
 * whose). A session waiting here is still connected on record; a request waiting for it moves it
 * to the front (`hurry`). Removed sessions (let go of, ended) never get their turn.
 */
export class ResumeQueue {
  private readonly queued = new Map<string, WaitingResume>();
  private readonly urgent = new Map<string, WaitingResume>();
  /** Sessions in their turn now. */
  private readonly inTurn = new Set<string>();
  private stopped = false;
  /** Since when the queue has been busy, and how many turns it gave meanwhile. */
  private round: { startedMs: number; turns: number } | undefined;

  constructor(private readonly options: ResumeQueueOptions) {}

  /** Sessions waiting for their turn (not those in it). */
  get size(): number {
    return this.queued.size + this.urgent.size;
  }

  /** Whether the session waits for its turn. */
  has(sessionId: string): boolean {
    return this.queued.has(sessionId) || this.urgent.has(sessionId);
  }

  ids(): string[] {
    return [...this.urgent.keys(), ...this.queued.keys()];
  }

  /** Queues the session, unless it waits or is in its turn already. */
  add(sessionId: string, accountId: string): void {
    if (this.stopped || this.has(sessionId) || this.inTurn.has(sessionId)) return;
    this.round ??= { startedMs: performance.now(), turns: 0 };
    this.queued.set(sessionId, { sessionId, accountId });
    this.giveTurns();
  }

  /** A request waits for this session's connection: it goes before the others still waiting. */
  hurry(sessionId: string): void {
    const waiting = this.queued.get(sessionId);
    if (!waiting) return;
    this.queued.delete(sessionId);
    this.urgent.set(sessionId, waiting);
  }

  /** The session is no longer this process's to resume (let go of, handed over, ended). */
  remove(sessionId: string): void {
    this.queued.delete(sessionId);
    this.urgent.delete(sessionId);
  }

  /** Shutdown: nobody waiting gets a turn any more (turns under way run out on their own). */
  stop(): void {
    this.stopped = true;
    this.queued.clear();
    this.urgent.clear();
  }

  private giveTurns(): void {
    if (this.stopped) return;
    for (const waiting of nextTurns(this.urgent.values(), this.queued.values(), this.inTurn.size, this.options.concurrency)) {
      this.remove(waiting.sessionId);
      this.inTurn.add(waiting.sessionId);
      this.round!.turns += 1;
      this.options
        .resume(waiting)
        .catch((error: unknown) => this.options.onError(error, waiting.sessionId))
        .finally(() => {
          this.inTurn.delete(waiting.sessionId);
          this.giveTurns();
          this.reportIfDrained();
        });
    }
  }

  private reportIfDrained(): void {
    if (this.inTurn.size > 0 || this.size > 0 || !this.round) return;
    this.options.onDrained?.(this.round.turns, performance.now() - this.round.startedMs);
    this.round = undefined;
  }
}

/**
 * Resolves at the driver's first report of how its connection went (online, a pairing code asked
 * for, a drop), or after `timeoutMs`; `cancel` resolves it at once (the start failed).
 */
export function firstOutcome(driver: ChatDriver, timeoutMs: number): { done: Promise<void>; cancel(): void } {
  let cancel = () => undefined as void;
  const done = new Promise<void>((resolve) => {
    const events = ['connected', 'disconnected', 'qr'] as const;
    const timer = setTimeout(() => cancel(), timeoutMs);
    timer.unref();
    cancel = () => {
      clearTimeout(timer);
      for (const event of events) driver.off(event, cancel);
      resolve();
    };
    for (const event of events) driver.on(event, cancel);
  });
  return { done, cancel: () => cancel() };
}
