import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { quotaEventParser, usageStream } from '@switchboard/contracts';
import type { UsageEvent } from '@switchboard/contracts';
import { SqliteEventStore } from '@switchboard/eventstore';
import { AggregateCache, CommandQueue, eventMetadata } from '@switchboard/service-kit';
import { decide as decideUsage } from '../src/usage/decide.js';
import type { UsageCommand } from '../src/usage/decide.js';
import { evolve as evolveUsage } from '../src/usage/evolve.js';
import { initialState as initialUsage, usedUnits } from '../src/usage/state.js';
import type { DailyUsageState } from '../src/usage/state.js';
import { messageId, tempDataDir } from './helpers.js';

const accountId = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const day = '2026-11-21';
const stream = usageStream(accountId, day);
const now = new Date('2026-11-21T12:00:00.000Z');
const fold = { initial: initialUsage, evolve: evolveUsage, parse: quotaEventParser.parse as (raw: Parameters<typeof quotaEventParser.parse>[0]) => UsageEvent };
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Two "processes": each its own store connection and its own aggregate cache, one SQLite file. */
function twoWriters() {
  const data = tempDataDir();
  const file = join(data.dir, 'events.sqlite');
  const stores = [new SqliteEventStore(file), new SqliteEventStore(file)];
  cleanups.push(data.remove, ...stores.map((s) => () => s.close()));
  return { stores, writers: stores.map((s) => new CommandQueue<DailyUsageState, UsageEvent>(s, fold, { cache: new AggregateCache(100) })) };
}

function run(writer: CommandQueue<DailyUsageState, UsageEvent>, command: UsageCommand) {
  return writer.execute(stream, (state) => decideUsage(command, state), usedUnits, () => eventMetadata({ accountId, now }));
}
const reserve = (n: number): UsageCommand => ({ type: 'ReserveUnit', accountId, day, messageId: messageId(n), limit: 50, now });

describe('CommandQueue on a usage day: group commit with optimistic concurrency', () => {
  it('never overspends when two writers with their own caches race on one stream', async () => {
    const { stores, writers } = twoWriters();
    for (let i = 0; i < 43; i++) await run(writers[i % 2]!, reserve(i));
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => run(writers[i % 2]!, reserve(100 + i))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(7);
    expect(new Set(results.flatMap((r) => (r.status === 'rejected' ? [(r.reason as { code: string }).code] : [])))).toEqual(new Set(['DAILY_MESSAGE_LIMIT_REACHED']));
    const stored = await stores[0]!.readStream(stream);
    expect(stored.filter((e) => e.type === 'DailyQuotaReserved')).toHaveLength(50);
    // Granted replies count each other: the seven `used` values are 44..50, each once.
    const used = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value.view] : [])).sort((a, b) => a - b);
    expect(used).toEqual([44, 45, 46, 47, 48, 49, 50]);
  });

  it('keeps no phantom units in a cache after a lost race', async () => {
    const { writers } = twoWriters();
    const [a, b] = writers as [CommandQueue<DailyUsageState, UsageEvent>, CommandQueue<DailyUsageState, UsageEvent>];
    await run(a, reserve(1));
    await Promise.all([run(a, reserve(2)), run(b, reserve(3)), run(a, reserve(4)), run(b, reserve(5))]);
    // A refund through `a` of a unit `b` took, and the count both see, prove both caches are true.
    const refund = await run(a, { type: 'RefundUnit', accountId, day, messageId: messageId(3), now });
    expect([refund.events.map((e) => e.type), refund.view]).toEqual([['DailyQuotaRefunded'], 4]);
    expect((await run(b, reserve(1))).view).toBe(4);
  });

  it('fails only the command whose decision throws, not the rest of its batch', async () => {
    const { writers } = twoWriters();
    const writer = writers[0]!;
    const results = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => run(writer, reserve(i))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(50);
    expect(results.slice(50).every((r) => r.status === 'rejected')).toBe(true);
  });
});
