import path from 'node:path';

/**
 * Wakes a store's live subscriptions as soon as an append commits. SQLite: appends made in this
 * process on the same file, and other processes' commits as the file system reports them
 * (`sqlite/other-writers.ts`). PostgreSQL: this process's appends, and every other writer's
 * through LISTEN/NOTIFY. Either way it only cuts the latency: a subscription that misses a
 * wake-up still finds the events at its next (slow) poll.
 */
export class AppendNotifier {
  #version = 0;
  readonly #waiters = new Set<() => void>();

  /** Monotonic counter of appends seen; take it before reading to avoid a lost wake-up. */
  get version(): number {
    return this.#version;
  }

  notify(): void {
    this.#version += 1;
    for (const wake of this.#waiters) wake();
  }

  /** Resolves on the next append after `seenVersion`, after `timeoutMs`, or on abort. */
  waitForAppend(seenVersion: number, timeoutMs: number, signal: AbortSignal): Promise<void> {
    if (this.#version !== seenVersion || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', wake);
        this.#waiters.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, timeoutMs);
      signal.addEventListener('abort', wake, { once: true });
      this.#waiters.add(wake);
    });
  }
}

const notifiersByFile = new Map<string, AppendNotifier>();

/** One notifier per SQLite database file, shared by every store instance opened on it in this process. */
export function notifierFor(file: string): AppendNotifier {
  if (file === ':memory:') return new AppendNotifier();
  const key = path.resolve(file);
  let notifier = notifiersByFile.get(key);
  if (!notifier) {
    notifier = new AppendNotifier();
    notifiersByFile.set(key, notifier);
  }
  return notifier;
}
