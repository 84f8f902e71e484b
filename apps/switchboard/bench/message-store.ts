/**
 * A messaging store as a busy Switchboard writes it, for the audit benches: four-event message
 * streams (accepted, sent, delivered, read) of one account, appended `IN_FLIGHT` streams at a time.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { SqliteEventStore } from '@switchboard/eventstore';
import type { EventStore, NewEvent } from '@switchboard/eventstore';

export const BENCH_ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
export const MESSAGE_LIFE = ['MessageAccepted', 'MessageSent', 'MessageDelivered', 'MessageRead'] as const;
const IN_FLIGHT = 64;

/** The `n`-th event of message `m`'s life, about the size the messaging service stores. */
export function messageEvent(m: number, n: number): NewEvent {
  const messageId = `msg_01JD${String(m).padStart(22, '0')}`;
  const at = new Date(Date.UTC(2026, 10, 21, 12, 0, 0, m * 10 + n)).toISOString();
  const data = n === 0
    ? { messageId, accountId: BENCH_ACCOUNT, sessionId: 'ses_01JD8Z5W3X4Y5Z6A7B8C9D0E1G', to: '15551234567', content: { type: 'text', text: `Your order #${m} has shipped and arrives tomorrow.` }, quotedMessageId: null, idempotencyKeyHash: null, usageDay: '2026-11-21', acceptedAt: at }
    : { messageId, [`${MESSAGE_LIFE[n]!.slice(7).toLowerCase()}At`]: at, ...(n === 1 ? { networkMessageId: `3EB0${String(m).padStart(16, '0')}` } : {}) };
  const correlationId = randomUUID();
  return { type: MESSAGE_LIFE[n]!, data, metadata: { accountId: BENCH_ACCOUNT, correlationId, causationId: correlationId, occurredAt: at, schemaVersion: n === 0 ? 2 : 1 } };
}

/** `events` events (rounded up to whole message lives) appended to the SQLite store at `file`. */
export async function fillMessageStore(file: string, events: number): Promise<void> {
  const store = new SqliteEventStore(file);
  let next = 0;
  const streams = Math.ceil(events / MESSAGE_LIFE.length);
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < streams) {
      const m = next++;
      await store.append(`message-msg_${m}`, MESSAGE_LIFE.map((_, n) => messageEvent(m, n)), { expectedRevision: 'no_stream' });
    }
  }));
  await store.close();
}

/** `work`'s result with its wall time and this process's CPU time, in seconds. */
export async function timed<T>(work: () => Promise<T>) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { result, seconds, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** Every event of the store read in pages of 1,000 with no checks: the baseline the audits are compared with. */
export async function scan(store: EventStore): Promise<number> {
  let events = 0;
  let page = await store.readAll({ maxCount: 1_000 });
  while (page.length > 0) {
    events += page.length;
    const last = page.at(-1)!.position;
    page = (await store.readAll({ fromPosition: last, maxCount: 1_001 })).filter((e) => e.position > last);
  }
  return events;
}
