/**
 * Child process of the benchmark: reconnects stored sessions in a process that never paired,
 * as a restarted service does, and prints what they cost. Pairing churn (812 pre-keys per
 * session) leaves V8 and malloc reservations in the pairing process's RSS; this one has none.
 * Input from BENCH_CHILD_* variables; output is one JSON line.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { ChatFixture } from '../src/chat/testing/chat-fixture.js';
import { nextEvent } from '../src/chat/testing/driver-events.js';
import { perSessionKb, round, settledMemory } from './memory.js';

async function main(): Promise<void> {
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is required`);
    return value;
  };
  const sessionIds = env('BENCH_CHILD_SESSIONS').split(',');
  const before = await settledMemory();
  const chat = await ChatFixture.create(
    { wsUrl: env('BENCH_CHILD_WS_URL'), controlUrl: env('BENCH_CHILD_CONTROL_URL') },
    { dataDir: env('BENCH_CHILD_DATA_DIR'), secretKey: Buffer.from(env('BENCH_CHILD_KEY'), 'hex') },
  );
  const startedAt = performance.now();
  await Promise.all(
    sessionIds.map(async (id) => {
      const driver = chat.driver(id);
      const connected = nextEvent(driver, 'connected', () => true, 120_000);
      await driver.start();
      await connected;
    }),
  );
  const reconnectMs = Math.round(performance.now() - startedAt);
  await sleep(Number(process.env.BENCH_SETTLE_MS ?? 35_000));
  const after = await settledMemory();
  await chat.close();
  const result = { sessions: sessionIds.length, reconnectMs, ...perSessionKb(before, after, sessionIds.length), rssMb: round(after.rssMb), heapUsedMb: round(after.heapUsedMb) };
  console.log(JSON.stringify(result));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
