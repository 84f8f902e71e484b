import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InProcessBus } from '@switchboard/bus';
import type { PublishOptions } from '@switchboard/bus';
import { PublishedEvent } from '@switchboard/contracts';
import { SqliteEventStore } from '@switchboard/eventstore';
import type { EventStore } from '@switchboard/eventstore';
import { eventMetadata, ulid } from '@switchboard/service-kit';
import { EventPublisher, SAFETY_PASS_MS, nextLookInMs } from '../src/publisher/event-publisher.js';
import { PublicationLease } from '../src/publisher/publication-lease.js';
import { eventually, silentLogger, tempDataDir } from './helpers.js';

// The publisher has no timer while idle: a pass is owed to a wake (the projections' afterApply,
// here called by hand), or to a timer after a failed pass or while another replica holds the lease.
const LEASE_MS = 300;
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function setUp() {
  const data = tempDataDir();
  const store = new SqliteEventStore(join(data.dir, 'events.sqlite'));
  const bus = new InProcessBus();
  const published: PublishedEvent[] = [];
  void bus.subscribe('sb.v1.evt.account.>', (message) => void published.push(PublishedEvent.parse(message.data)));
  cleanups.push(data.remove, () => store.close(), () => bus.close());
  const publisher = (replica: string, publishingBus: Pick<InProcessBus, 'publish' | 'mayBeHeard'> = bus) => {
    const lease = new PublicationLease(join(data.dir, 'publisher.sqlite'), replica, LEASE_MS);
    const started = new EventPublisher({ bus: publishingBus as InProcessBus, store, logger: silentLogger, lease, retryMs: 50 });
    cleanups.push(() => lease.close(), () => started.stop());
    return started;
  };
  const append = async (): Promise<string> => {
    const accountId = `acc_${ulid()}`;
    const keyId = `key_${ulid()}`;
    await store.append(`account-${accountId}`, [{
      type: 'ApiKeyRevoked', data: { accountId, keyId, revokedAt: new Date().toISOString() },
      metadata: { ...eventMetadata({ accountId, now: new Date() }), schemaVersion: 1 },
    }], { expectedRevision: 'any' });
    return keyId;
  };
  const publishedKeys = () => published.map((event) => (event.data as { keyId: string }).keyId);
  const reserve = async (): Promise<string> => {
    const accountId = `acc_${ulid()}`;
    const messageId = `msg_${ulid()}`;
    await store.append(`usage-${accountId}-2026-11-28`, [{
      type: 'DailyQuotaReserved', data: { accountId, day: '2026-11-28', messageId, limit: null, reservedAt: new Date().toISOString() },
      metadata: { ...eventMetadata({ accountId, now: new Date() }), schemaVersion: 1 },
    }], { expectedRevision: 'any' });
    return messageId;
  };
  return { store, bus, publisher, append, reserve, publishedKeys };
}

/** The category of each read the store's tails are asked for (undefined: the whole log), as they are asked. */
function tailReadsOf(store: EventStore): (string | undefined)[] {
  const reads: (string | undefined)[] = [];
  const tailOf = store.tail.bind(store);
  store.tail = (category) => {
    const tail = tailOf(category);
    return { readAfter: (after, limit, through) => (reads.push(category), tail.readAfter(after, limit, through)) };
  };
  return reads;
}

describe('quota event publisher', () => {
  it('looks on its own only after a failed pass, once another replica’s lease ran out, or every 30 s', () => {
    expect(nextLookInMs({ kind: 'done' }, {})).toBe(SAFETY_PASS_MS);
    expect(nextLookInMs({ kind: 'retry' }, { retryMs: 200 })).toBe(200);
    expect(nextLookInMs({ kind: 'held-elsewhere', untilMs: 10_000 }, {}, 7_000)).toBe(3_050);
    expect(nextLookInMs({ kind: 'held-elsewhere', untilMs: 10_000 }, {}, 12_000)).toBe(50);
  });

  it('reads nothing while nothing is appended', async () => {
    const { store, publisher, append, publishedKeys } = setUp();
    const reads = tailReadsOf(store);
    const only = publisher('replica-a');
    only.start(-1n);
    const keyId = await append();
    only.wake();
    await eventually(() => publishedKeys().includes(keyId) || undefined);
    expect(reads.length).toBeGreaterThan(0);
    reads.length = 0;
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(reads).toEqual([]);
  });

  it('does not read a category nobody on the in-process bus listens to (usage), and publishes it once someone does', async () => {
    const { store, bus, publisher, append, reserve, publishedKeys } = setUp();
    const categoriesRead = tailReadsOf(store);
    const only = publisher('replica-a');
    only.start(-1n);
    await reserve();
    const keyId = await append();
    only.wake();
    await eventually(() => publishedKeys().includes(keyId) || undefined);
    expect(new Set(categoriesRead)).toEqual(new Set(['account']));

    const reservations: string[] = [];
    await bus.subscribe('sb.v1.evt.usage.>', (message) => void reservations.push((PublishedEvent.parse(message.data).data as { messageId: string }).messageId));
    const messageId = await reserve();
    only.wake();
    await eventually(() => reservations.includes(messageId) || undefined);
    expect(reservations).toEqual([messageId]);
  });

  it('reads the log once a pass when every category is heard, publishing both in position order and nothing else', async () => {
    const { store, bus, publisher, append, reserve } = setUp();
    const heard: string[] = [];
    await bus.subscribe('sb.v1.evt.>', (message) => void heard.push(PublishedEvent.parse(message.data).stream.split('-')[0]!));
    const reads = tailReadsOf(store);
    await reserve();
    await append();
    // Not quota's, but in its store: never published.
    await store.append('webhook-wh_1', [{ type: 'WebhookRegistered', data: {} }], { expectedRevision: 'any' });
    await reserve();
    const only = publisher('replica-a');
    only.start(-1n);
    only.wake();
    await eventually(() => heard.length >= 3 || undefined);
    expect(heard).toEqual(['usage', 'account', 'usage']);
    expect(new Set(reads)).toEqual(new Set([undefined]));

    // One append, one wake: one read.
    await new Promise((resolve) => setTimeout(resolve, 100));
    reads.length = 0;
    await reserve();
    only.wake();
    await eventually(() => heard.length >= 4 || undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reads).toEqual([undefined]);
  });

  it('passes over a full page of events of another category in its store and publishes what follows', async () => {
    const { store, bus, publisher, append, publishedKeys } = setUp();
    await bus.subscribe('sb.v1.evt.usage.>', () => undefined);
    for (let i = 0; i < 501; i += 1) await store.append(`webhook-wh_${i}`, [{ type: 'WebhookRegistered', data: {} }], { expectedRevision: 'any' });
    const keyId = await append();
    const only = publisher('replica-a');
    only.start(-1n);
    only.wake();
    await eventually(() => publishedKeys().includes(keyId) || undefined);
  });

  it('takes over from a replica that stopped renewing its lease (a crash) and publishes what it left, with no append to wake it', async () => {
    const { publisher, append, publishedKeys } = setUp();
    const a = publisher('replica-a');
    const b = publisher('replica-b');
    a.start(-1n);
    b.start(-1n);
    const first = await append();
    a.wake();
    await eventually(() => publishedKeys().includes(first) || undefined);
    // Replica a is gone from now on (never woken again, lease never released); b is woken by the next
    // append while a's lease still runs, so only its own look after the lease could expire publishes it.
    const second = await append();
    b.wake();
    await eventually(() => publishedKeys().includes(second) || undefined, 5 * LEASE_MS);
    expect(publishedKeys()).toEqual([first, second]);
  });

  it('tries a failed pass again without waiting for the next append', async () => {
    const { publisher, append, publishedKeys } = setUp();
    const bus = new InProcessBus();
    cleanups.push(() => bus.close());
    let refusals = 1;
    const flaky = {
      publish: async (subject: string, data: unknown, options?: PublishOptions) => {
        if (refusals-- > 0) throw new Error('bus unavailable');
        return bus.publish(subject, data, options);
      },
      mayBeHeard: (subject: string) => bus.mayBeHeard(subject),
    };
    const delivered: string[] = [];
    await bus.subscribe('sb.v1.evt.account.>', (message) => void delivered.push((PublishedEvent.parse(message.data).data as { keyId: string }).keyId));
    const only = publisher('replica-a', flaky);
    only.start(-1n);
    const keyId = await append();
    only.wake();
    await eventually(() => delivered.includes(keyId) || undefined, 5_000);
    expect(delivered).toEqual([keyId]);
    expect(publishedKeys()).toEqual([]);
  });
});
