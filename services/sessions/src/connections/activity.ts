import type { SessionActivity } from '@switchboard/contracts';

/** At most one SessionActivityRecorded per session per window. */
export const ACTIVITY_WINDOW_MS = 5_000;

type Write = (sessionId: string, accountId: string, activity: SessionActivity) => Promise<void>;

interface Slot {
  lastWriteAt: number;
  trailing: { accountId: string; activity: SessionActivity } | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Moves `lastActivity` without one event per message: the first activity after a quiet window
 * is written at once, later ones within the window collapse into one trailing write at its end.
 * A busy session thus grows its stream by at most one event per window, and `lastActivity` lags
 * the truth by at most one window.
 */
export class ActivityRecorder {
  private readonly slots = new Map<string, Slot>();

  constructor(
    private readonly write: Write,
    private readonly now: () => number = Date.now,
    private readonly windowMs = ACTIVITY_WINDOW_MS,
  ) {}

  touch(sessionId: string, accountId: string, activity: SessionActivity): void {
    const slot = this.slots.get(sessionId) ?? { lastWriteAt: -Infinity, trailing: undefined, timer: undefined };
    this.slots.set(sessionId, slot);
    const wait = slot.lastWriteAt + this.windowMs - this.now();
    if (wait <= 0 && !slot.timer) return this.flush(sessionId, slot, { accountId, activity });
    slot.trailing = { accountId, activity };
    slot.timer ??= setTimeout(() => this.flushTrailing(sessionId), Math.max(wait, 0));
  }

  /** Forgets a session (deleted or closed); a pending trailing write is dropped. */
  forget(sessionId: string): void {
    clearTimeout(this.slots.get(sessionId)?.timer);
    this.slots.delete(sessionId);
  }

  stop(): void {
    for (const slot of this.slots.values()) clearTimeout(slot.timer);
    this.slots.clear();
  }

  private flushTrailing(sessionId: string): void {
    const slot = this.slots.get(sessionId);
    if (!slot) return;
    slot.timer = undefined;
    const pending = slot.trailing;
    slot.trailing = undefined;
    if (pending) this.flush(sessionId, slot, pending);
  }

  private flush(sessionId: string, slot: Slot, entry: { accountId: string; activity: SessionActivity }): void {
    slot.lastWriteAt = this.now();
    void this.write(sessionId, entry.accountId, entry.activity);
  }
}
