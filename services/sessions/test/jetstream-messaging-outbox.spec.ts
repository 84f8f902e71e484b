import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InProcessBus } from '@switchboard/bus';
import { MessagingSubjects } from '@switchboard/contracts';
import type { RecordReceiptsCommand } from '@switchboard/contracts';
import { connect } from '@nats-io/transport-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MessagingForwarder } from '../src/connections/messaging-forwarder.js';
import type { MessagingOutbox } from '../src/outbox/messaging-outbox.js';
import { openMessagingOutbox } from '../src/outbox/open-messaging-outbox.js';
import { SqliteMessagingOutbox } from '../src/outbox/sqlite-messaging-outbox.js';
import type { OutboxPlace } from './messaging-outbox-fixtures.js';
import { jetStreamPlace, NATS_URL, noMedia, quiet, receipt, recordReceiptsWith, until } from './messaging-outbox-fixtures.js';

/** A sessions replica as far as the outbox goes: its own NATS connection, its bus, its forwarder. */
interface Replica {
  bus: InProcessBus;
  outbox: MessagingOutbox;
  forwarder: MessagingForwarder;
  /** Ends it: stopped, or gone without a word (SIGKILL: its connection drops, nothing is acked). */
  end(how: 'stop' | 'die'): Promise<void>;
}

// Several sessions replicas share one outbox (distributed mode): what one heard is sent by any.
describe('receipts and received messages shared by sessions replicas (JetStream outbox)', () => {
  let places: OutboxPlace[];
  let replicas: Replica[];

  beforeEach(() => {
    places = [];
    replicas = [];
  });
  afterEach(async () => {
    for (const replica of replicas) await replica.end('stop');
    for (const place of places) await place.remove();
  });

  function shared(options: Parameters<typeof jetStreamPlace>[0] = {}) {
    const place = jetStreamPlace(options);
    places.push(place);
    return place;
  }

  async function replica(place: ReturnType<typeof jetStreamPlace>): Promise<Replica> {
    const connection = await connect({ servers: NATS_URL, name: 'outbox-test-replica' });
    const outbox = await place.openOn(connection);
    const bus = new InProcessBus({ logger: quiet });
    const forwarder = new MessagingForwarder(bus, outbox, noMedia, quiet);
    forwarder.start();
    let ended = false;
    const running: Replica = {
      bus,
      outbox,
      forwarder,
      end: async (how) => {
        if (ended) return;
        ended = true;
        if (how === 'die') {
          // Its requests still out are not waited for: nothing it had will be acked.
          await connection.close();
          void forwarder.stop();
        } else await forwarder.stop();
        await outbox.close();
        await connection.close();
        await bus.close();
      },
    };
    replicas.push(running);
    return running;
  }

  /** Messaging, as seen from one replica: how often each receipt was recorded; how many this replica sent. */
  async function messaging(bus: InProcessBus, recorded: Map<string, number>): Promise<{ sent: number }> {
    const from = { sent: 0 };
    await bus.subscribe(MessagingSubjects.recordReceipts.subject, recordReceiptsWith(({ networkMessageId }) => {
      recorded.set(networkMessageId, (recorded.get(networkMessageId) ?? 0) + 1);
      from.sent++;
    }));
    return from;
  }

  it('sends from another replica what a replica heard and could not hand to messaging before it stopped', async () => {
    const place = shared();
    const first = await replica(place);
    for (let i = 0; i < 20; i++) first.forwarder.receipt(receipt(i));
    // Messaging out of this replica's reach: it keeps trying, then ends for good (an emptyDir goes with it).
    await until(async () => (await first.outbox.backlog()) === 20);
    await first.end('stop');

    const recorded = new Map<string, number>();
    const second = await replica(place);
    await messaging(second.bus, recorded);
    // Handed back as the first replica stopped, so not held until the ack wait (10 s) runs out.
    await until(() => recorded.size === 20, 5_000);
    expect([...recorded.keys()].sort()).toEqual(Array.from({ length: 20 }, (_, i) => receipt(i).networkMessageId));
  });

  it('sends again from another replica what a replica that died was sending (after the ack wait)', async () => {
    const place = shared({ ackWaitMs: 2_000 });
    const first = await replica(place);
    // Messaging takes the requests of the first replica and never answers: they are in flight when it dies.
    const seenByFirst = new Set<string>();
    await first.bus.subscribe(MessagingSubjects.recordReceipts.subject, (message) => {
      for (const { networkMessageId } of (message.data as RecordReceiptsCommand).receipts) seenByFirst.add(networkMessageId);
      return new Promise(() => undefined);
    });
    for (let i = 0; i < 10; i++) first.forwarder.receipt(receipt(i));
    await until(() => seenByFirst.size === 10);
    await first.end('die');

    const recorded = new Map<string, number>();
    const second = await replica(place);
    await messaging(second.bus, recorded);
    await until(() => recorded.size === 10);
    expect([...recorded.keys()].sort()).toEqual([...seenByFirst].sort());
  });

  it('two replicas sending at once share the entries: each is recorded, none is lost', async () => {
    const place = shared();
    const recorded = new Map<string, number>();
    const [a, b] = [await replica(place), await replica(place)];
    const [fromA, fromB] = [await messaging(a.bus, recorded), await messaging(b.bus, recorded)];
    for (let i = 0; i < 200; i++) (i % 2 === 0 ? a : b).forwarder.receipt(receipt(i));

    await until(() => recorded.size === 200);
    expect([...recorded.keys()].sort()).toEqual(Array.from({ length: 200 }, (_, i) => receipt(i).networkMessageId));
    // Both replicas send (each pulls at most 32 at a time from the one queue), whoever heard what.
    expect(fromA.sent).toBeGreaterThan(0);
    expect(fromB.sent).toBeGreaterThan(0);
    const reader = await place.open();
    await until(async () => (await reader.backlog()) === 0);
    await reader.close();
  });

  it('moves to the shared outbox what a SQLite outbox of the data dir still holds (written before the outbox was shared)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-outbox-'));
    const connection = await connect({ servers: NATS_URL, name: 'outbox-test-upgrade' });
    try {
      const local = new SqliteMessagingOutbox(join(dir, 'messaging-outbox.sqlite'));
      for (let i = 0; i < 3; i++) await local.add({ subject: 'recordReceipt', command: receipt(i) });
      await local.close();

      const place = shared();
      const outbox = await openMessagingOutbox(dir, connection, quiet, place.names);
      expect(await outbox.backlog()).toBe(3);
      await outbox.close();
      const emptied = new SqliteMessagingOutbox(join(dir, 'messaging-outbox.sqlite'));
      await until(async () => (await emptied.backlog()) === 0);
      await emptied.close();

      const recorded = new Map<string, number>();
      await messaging((await replica(place)).bus, recorded);
      await until(() => recorded.size === 3);
    } finally {
      await connection.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
