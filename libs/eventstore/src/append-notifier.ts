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
  /** The version of the last append seen in each category. */
  readonly #categoryVersions = new Map<string, number>();
  /** The version of the last append whose category is not known (another writer's). */
  #unknownVersion = 0;
  readonly #waiters = new Set<Waiter>();

  /**
   * Monotonic counter of the appends that concern `category` (every append when none is given);
   * take it before reading to avoid a lost wake-up.
   */
  version(category?: string): number {
    if (category === undefined) return this.#version;
    return Math.max(this.#categoryVersions.get(category) ?? 0, this.#unknownVersion);
  }

  /**
   * An append committed, in `category` (this process's own appends), or somewhere unknown (another
   * writer's, as the file system or LISTEN reports it): wakes the waiters it concerns. A
   * subscription to one category is not woken by another's appends, which it would read for nothing.
   */
  notify(category?: string): void {
    this.#version += 1;
    if (category === undefined) this.#unknownVersion = this.#version;
    else this.#categoryVersions.set(category, this.#version);
    for (const waiter of this.#waiters) {
      if (category === undefined || waiter.category === undefined || waiter.category === category) waiter.wake();
    }
  }

  /** Resolves on the next append concerning `category` after `seenVersion`, after `timeoutMs`, or on abort. */
  waitForAppend(seenVersion: number, timeoutMs: number, signal: AbortSignal, category?: string): Promise<void> {
    if (this.version(category) !== seenVersion || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter: Waiter = {
        category,
        wake: () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', waiter.wake);
          this.#waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.wake, timeoutMs);
      signal.addEventListener('abort', waiter.wake, { once: true });
      this.#waiters.add(waiter);
    });
  }
}

interface Waiter {
  /** Undefined: woken by every append. */
  category: string | undefined;
  wake(): void;
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
