import { join } from 'node:path';
import { MessagingSubjects, messageEventParser } from '@switchboard/contracts';
import { openEventStore } from '@switchboard/eventstore';
import { toRawEvent } from '@switchboard/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, buildServices, eventually, uniquePhone } from './support/cluster.js';
import { lookup } from './support/sends.js';

// The crash case of issue 6: services as separate processes over NATS; the messaging process is
// SIGKILLed during a burst of 200 sends and started again on the same data. To make sure the kill
// lands while messages are between "accepted" and "sent", sessions is frozen (SIGSTOP) for a
// moment first: the sends it had taken are then sent after messaging died, and their answers are
// lost. That is the hardest case: recovery must ask again with the same ids and get no second send.

const BURST = 200;
const CONTACTS = 10;
const KILL_AFTER_ACKS = 50;
const IN_FLIGHT = 40;

let cluster: Cluster;
beforeAll(async () => {
  buildServices();
  cluster = await Cluster.start({ messagingProcess: true });
}, 240_000);
afterAll(async () => {
  await cluster?.close();
});

describe('messaging killed with SIGKILL during a burst of 200 sends', () => {
  it('finishes every accepted message after restart, and each contact receives each message exactly once', async () => {
    const accountId = await cluster.account('enterprise');
    const sessionId = await cluster.connectedSession(accountId, uniquePhone());
    const contacts = Array.from({ length: CONTACTS }, () => uniquePhone());
    const acknowledged = new Map<string, string>(); // messageId -> text
    let killed: Promise<void> | undefined;

    let next = 0;
    const worker = async () => {
      while (next < BURST) {
        const i = next++;
        const text = `burst message ${i}`;
        const to = contacts[i % CONTACTS]!;
        try {
          const reply = await cluster.call(MessagingSubjects.sendText, { accountId, body: { sessionId, to, text } }, 15_000);
          acknowledged.set(reply.messageId, text);
          if (acknowledged.size === KILL_AFTER_ACKS) killed ??= crashMidway();
        } catch {
          // Refused or unanswered while messaging is down: nothing was promised to this client.
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    await killed;
    expect(acknowledged.size).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
    expect(acknowledged.size).toBeLessThan(BURST);

    cluster.spawnService('messaging');
    await cluster.untilReady();

    // Every acknowledged message ends sent, delivered, read or visibly failed: never pending, never lost.
    for (const messageId of acknowledged.keys()) {
      const view = await eventually(async () => {
        const found = await lookup(cluster, accountId, messageId);
        return typeof found !== 'string' && found.status !== 'pending' ? found : undefined;
      }, 60_000);
      expect(['sent', 'delivered', 'read', 'failed']).toContain(view.status);
      if (view.status === 'failed') expect(view.error?.code).toEqual(expect.any(String));
    }

    // Recovery finished the ones accepted but unanswered at the kill too: no stream stays open.
    const streams = await eventually(async () => {
      const open = await openStreams();
      return open.pending === 0 ? open : undefined;
    }, 60_000);
    expect(streams.accepted).toBeGreaterThanOrEqual(acknowledged.size);
    // Some were accepted but never answered: the kill did land mid-send.
    expect(streams.accepted).toBeGreaterThan(acknowledged.size);
    console.info(`crash test: ${acknowledged.size} acknowledged, ${streams.accepted} accepted, all finished after restart`);

    // Each contact received each text at most once, and every acknowledged, sent text exactly once.
    const log = (await Promise.all(contacts.map((c) => cluster.control.messages(c)))).flat();
    // Sessions never died: every redelivery found the first send's answer, none went out again.
    expect(log.filter((m) => m.repeats > 0)).toEqual([]);
    const received = log.map((m) => m.text);
    const counts = new Map<string | undefined, number>();
    for (const text of received) counts.set(text, (counts.get(text) ?? 0) + 1);
    expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
    // …and what the network acknowledged is exactly what the contacts have: nothing lost, nothing extra.
    expect(counts.size).toBe(streams.sent);
    for (const [messageId, text] of acknowledged) {
      const view = await lookup(cluster, accountId, messageId);
      if (typeof view !== 'string' && view.status !== 'failed') expect(counts.get(text)).toBe(1);
    }
  });
});

/** Freezes sessions so sends pile up accepted but unanswered, kills messaging, thaws sessions. */
async function crashMidway(): Promise<void> {
  cluster.signal('sessions', 'SIGSTOP');
  await new Promise((r) => setTimeout(r, 1_000));
  await cluster.kill('messaging');
  cluster.signal('sessions', 'SIGCONT');
}

/** Reads the messaging store (SQLite in the data dir) the way an operator auditing it would. */
async function openStreams(): Promise<{ accepted: number; pending: number; sent: number }> {
  const store = openEventStore({ sqlitePath: join(cluster.dataDir, 'messaging', 'events.sqlite') });
  try {
    const status = new Map<string, string>();
    for (const recorded of await store.readAll({ category: 'message' })) {
      const event = messageEventParser.parse(toRawEvent(recorded));
      if (event.type === 'MessageAccepted') status.set(event.data.messageId, 'pending');
      else if (event.type === 'MessageSent') status.set(event.data.messageId, 'sent');
      else if (event.type === 'MessageFailed') status.set(event.data.messageId, 'failed');
    }
    const count = (wanted: string) => [...status.values()].filter((s) => s === wanted).length;
    return { accepted: status.size, pending: count('pending'), sent: count('sent') };
  } finally {
    await store.close();
  }
}
