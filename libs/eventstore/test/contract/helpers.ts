import { randomUUID } from 'node:crypto';
import type { EventStore, NewEvent, RecordedEvent, Subscription } from '../../src/index.js';

/** What the contract needs from an adapter: fresh connections to one shared store. */
export interface ContractTarget {
  /** Opens another connection to the same store (the suite closes it). */
  connect(): Promise<EventStore>;
}

/** A category no other test (or earlier run against a shared server) has used. */
export function freshCategory(): string {
  return `c${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

export function freshStream(category = freshCategory()): string {
  return `${category}-${randomUUID()}`;
}

export function events(count: number, type = 'ThingHappened', from = 0): NewEvent[] {
  return Array.from({ length: count }, (_, i) => ({ type, data: { n: from + i }, metadata: { correlationId: `c-${from + i}` } }));
}

export function dataOf(recorded: readonly RecordedEvent[]): unknown[] {
  return recorded.map((event) => event.data);
}

/**
 * Takes the next `count` events without closing the subscription (a `for await` + `break`
 * would close it), failing after `timeoutMs` so a missing event fails the test, not hangs it.
 */
export async function nextEvents(iterator: AsyncIterator<RecordedEvent>, count: number, timeoutMs = 5_000): Promise<RecordedEvent[]> {
  const taken: RecordedEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (taken.length < count) {
    const result = await withTimeout(iterator.next(), deadline - Date.now(), `only ${taken.length} of ${count} events arrived`);
    if (result.done) throw new Error(`subscription ended after ${taken.length} of ${count} events`);
    taken.push(result.value);
  }
  return taken;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out: ${message}`)), Math.max(ms, 0));
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** The subscription's events one by one, whatever batches they came in. */
export function iteratorOf(subscription: Subscription): AsyncIterator<RecordedEvent> {
  return eventsOf(subscription)[Symbol.asyncIterator]();
}

async function* eventsOf(subscription: Subscription): AsyncGenerator<RecordedEvent, void, undefined> {
  for await (const batch of subscription) yield* batch;
}
