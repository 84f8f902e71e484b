import path from 'node:path';
import { StoredEvent } from './event-store.js';
import type { RecordedEvent } from './event-store.js';

/**
 * An event this process appended, as the store holds it (data and metadata as their stored JSON):
 * what a subscription would read back, kept so that it need not read it back.
 */
export interface AppendedEvent {
  readonly stream: string;
  readonly category: string;
  readonly type: string;
  readonly revision: bigint;
  readonly position: bigint;
  readonly data: string;
  readonly metadata: string;
  readonly recordedAtMs: number;
  readonly id: string;
}

/** An appended event as a read would return it: its own objects, parsed from the stored JSON. */
export function recordedEventOf(appended: AppendedEvent): RecordedEvent {
  return new StoredEvent(appended.stream, appended.type, appended.revision, appended.position, JSON.parse(appended.data) as unknown,
    JSON.parse(appended.metadata) as Record<string, unknown>, new Date(appended.recordedAtMs), appended.id);
}

/** One commit's events in this process, positions `first`..`last` with no other event between. */
interface OwnCommit {
  first: bigint;
  last: bigint;
  events: readonly AppendedEvent[];
}

/**
 * How many of this process's latest appended events the notifier keeps (about 1 MB of JSON at most
 * for the largest events): a live subscription is a turn or two behind; one further behind reads
 * the store, as it would anyway.
 */
const KEPT_EVENTS = 1_024;

/**
 * Wakes a store's live subscriptions as soon as an append commits. SQLite: appends made in this
 * process on the same file, and other processes' commits as the file system reports them
 * (`sqlite/other-writers.ts`). PostgreSQL: this process's appends, and every other writer's
 * through LISTEN/NOTIFY. Either way it only cuts the latency: a subscription that misses a
 * wake-up still finds the events at its next (slow) poll.
 *
 * It also keeps this process's latest appended events (`appendedAfter`): positions are drawn in
 * commit order under the store's write lock, so commits of this process that follow each other
 * without a gap in positions hold every event of that range, and a live subscription takes them
 * from here instead of reading them back. Another writer's commit leaves a gap (or announces
 * itself, `notify`), and the subscription reads the store again.
 */
export class AppendNotifier {
  #version = 0;
  /** The version of the last append seen in each category. */
  readonly #categoryVersions = new Map<string, number>();
  /** The version of the last append whose category is not known (another writer's). */
  #unknownVersion = 0;
  /** The version of another writer's last append in each category, and of one in an unknown category. */
  readonly #foreignVersions = new Map<string, number>();
  #foreignUnknownVersion = 0;
  /** This process's latest commits, oldest first, `KEPT_EVENTS` events at most. */
  readonly #ownCommits: OwnCommit[] = [];
  #keptEvents = 0;
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
   * Another writer committed, in `category` or somewhere unknown (as the file system or LISTEN
   * reports it): wakes the waiters it concerns. A subscription to one category is not woken by
   * another's appends, which it would read for nothing.
   */
  notify(category?: string): void {
    this.#bump(category);
    if (category === undefined) this.#foreignUnknownVersion = this.#version;
    else this.#foreignVersions.set(category, this.#version);
    this.#wake(category);
  }

  /**
   * This process committed `events` (one commit's, in position order, no other event between
   * them): kept for `appendedAfter`, and the waiters of their categories woken.
   */
  notifyAppended(events: readonly AppendedEvent[]): void {
    if (events.length === 0) return;
    const head = this.ownHead();
    // Positions that went back (the log made anew under a running store): what was kept is not this log's.
    const madeAnew = head !== undefined && events[0]!.position <= head;
    if (madeAnew) {
      this.#ownCommits.length = 0;
      this.#keptEvents = 0;
    }
    this.#ownCommits.push({ first: events[0]!.position, last: events.at(-1)!.position, events });
    this.#keptEvents += events.length;
    while (this.#keptEvents > KEPT_EVENTS && this.#ownCommits.length > 1) this.#keptEvents -= this.#ownCommits.shift()!.events.length;
    const categories = new Set(events.map((event) => event.category));
    for (const category of categories) this.#bump(category);
    // As another writer's: every subscription reads the store again.
    if (madeAnew) this.#foreignUnknownVersion = this.#version;
    for (const category of categories) this.#wake(category);
  }

  /** The version of another writer's last append concerning `category` (any append when none is given). */
  foreignVersion(category?: string): number {
    if (category === undefined) return Math.max(this.#foreignUnknownVersion, ...this.#foreignVersions.values());
    return Math.max(this.#foreignVersions.get(category) ?? 0, this.#foreignUnknownVersion);
  }

  /** The position of this process's last appended event, if it appended any (take it before reading). */
  ownHead(): bigint | undefined {
    return this.#ownCommits.at(-1)?.last;
  }

  /**
   * The events of `category` (every event when none is given) after position `after`, up to
   * `ownHead()`, when this process's kept commits hold every event of that range (they follow each
   * other, and `after` itself, without a gap); undefined when they do not (another writer's event
   * may lie between, or they are no longer kept): then only the store knows.
   */
  appendedAfter(after: bigint, category?: string): AppendedEvent[] | undefined {
    const commits = this.#ownCommits;
    let index = commits.length;
    let next = (commits.at(-1)?.last ?? after) + 1n;
    // Back from the newest commit, as long as each ends right before the one after it.
    while (index > 0 && next > after + 1n) {
      const commit = commits[index - 1]!;
      if (commit.last + 1n !== next) return undefined;
      next = commit.first;
      index -= 1;
    }
    if (next > after + 1n) return undefined;
    const events: AppendedEvent[] = [];
    for (const commit of commits.slice(index)) {
      for (const event of commit.events) {
        if (event.position > after && (category === undefined || event.category === category)) events.push(event);
      }
    }
    return events;
  }

  #bump(category: string | undefined): void {
    this.#version += 1;
    if (category === undefined) this.#unknownVersion = this.#version;
    else this.#categoryVersions.set(category, this.#version);
  }

  #wake(category: string | undefined): void {
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

const notifiersByFile = new Map<string, { notifier: AppendNotifier; holders: number }>();

/**
 * One notifier per SQLite database file, shared by every store instance open on it in this
 * process; `release()` when the store closes. Once none is open it is forgotten: the appends it
 * kept belong to the file as it was, and a file made anew at the same path starts its positions
 * over.
 */
export function notifierFor(file: string): { notifier: AppendNotifier; release(): void } {
  if (file === ':memory:') return { notifier: new AppendNotifier(), release: () => undefined };
  const key = path.resolve(file);
  let entry = notifiersByFile.get(key);
  if (!entry) {
    entry = { notifier: new AppendNotifier(), holders: 0 };
    notifiersByFile.set(key, entry);
  }
  entry.holders += 1;
  const held = entry;
  let released = false;
  return {
    notifier: held.notifier,
    release: () => {
      if (released) return;
      released = true;
      held.holders -= 1;
      if (held.holders === 0 && notifiersByFile.get(key) === held) notifiersByFile.delete(key);
    },
  };
}
