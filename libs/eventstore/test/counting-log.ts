import { AppendNotifier } from '../src/append-notifier.js';
import type { AppendedEvent } from '../src/append-notifier.js';
import { StoredEvent } from '../src/event-store.js';
import type { RecordedEvent } from '../src/event-store.js';
import type { PollingSource } from '../src/polling-subscription.js';

/** A log in memory that counts the store reads of the subscriptions and tails over it; `append` is this process's, `appendForeign` another writer's. */
export class CountingLog {
  readonly notifier = new AppendNotifier();
  readonly events: AppendedEvent[] = [];
  reads = 0;

  source(category?: string): PollingSource {
    return {
      readAfter: (checkpoint, limit) => {
        this.reads += 1;
        return this.events.filter((e) => e.position > checkpoint && (category === undefined || e.category === category)).slice(0, limit).map(toRecorded);
      },
      notifier: this.notifier,
      pollIntervalMs: 60_000,
      category,
    };
  }

  append(category: string): void {
    this.notifier.notifyAppended([this.#add(category)]);
  }

  /** Committed by someone else: nobody is told (as when the file system's report is lost). */
  appendForeign(category: string): void {
    this.#add(category);
  }

  #add(category: string): AppendedEvent {
    const position = BigInt(this.events.length + 1);
    const event = {
      stream: `${category}-1`, category, type: 'Happened', revision: position, position,
      data: JSON.stringify({ n: Number(position) }), metadata: '{}', recordedAtMs: 1_000, id: `e${position}`,
    };
    this.events.push(event);
    return event;
  }
}

function toRecorded(e: AppendedEvent): RecordedEvent {
  return new StoredEvent(e.stream, e.type, e.revision, e.position, JSON.parse(e.data), JSON.parse(e.metadata), new Date(e.recordedAtMs), e.id);
}
