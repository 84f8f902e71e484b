/**
 * The chat driver's figures against the emulator in its own process: pairing time, memory per
 * connected session, reconnecting from stored credentials, sends per second, heap over a soak.
 * Run with `npx nx run @switchboard/sessions:bench`; sizes come from BENCH_* variables.
 */
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { ChatDriver } from '../src/chat/driver.js';
import { ChatFixture } from '../src/chat/testing/chat-fixture.js';
import { nextEvent } from '../src/chat/testing/driver-events.js';
import { pairWithPhone } from '../src/chat/testing/pair.js';
import { spawnEmulator, type EmulatorProcess } from './emulator-process.js';
import { perSessionKb, round, settledMemory, type MemorySample } from './memory.js';

const config = {
  sessionCounts: (process.env.BENCH_SESSIONS ?? '50,200').split(',').map(Number),
  pairConcurrency: Number(process.env.BENCH_PAIR_CONCURRENCY ?? 10),
  /** Baileys keeps each new socket for 30 s (its pre-key upload timeout timer is never cleared). */
  settleMs: Number(process.env.BENCH_SETTLE_MS ?? 35_000),
  sendsOneSession: Number(process.env.BENCH_SENDS_ONE ?? 2_000),
  sendsTwentySessions: Number(process.env.BENCH_SENDS_TWENTY ?? 4_000),
  soakMessages: Number(process.env.BENCH_SOAK ?? 20_000),
};

const results: Record<string, unknown> = { config };
const log = (line: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

function phoneFor(index: number): string {
  return `1777${String(index).padStart(7, '0')}`;
}

async function inBatches<T>(items: T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  for (let start = 0; start < items.length; start += size) await Promise.all(items.slice(start, start + size).map(work));
}

async function pairSessions(chat: ChatFixture, from: number, to: number): Promise<ChatDriver[]> {
  const indexes = Array.from({ length: to - from }, (_, offset) => from + offset);
  const drivers: ChatDriver[] = [];
  await inBatches(indexes, config.pairConcurrency, async (index) => {
    const driver = chat.driver(`ses_bench_${index}`);
    await pairWithPhone(driver, chat.control, phoneFor(index), 120_000);
    drivers.push(driver);
  });
  return drivers;
}

async function timePairing(chat: ChatFixture): Promise<ChatDriver> {
  const startedAt = performance.now();
  const [driver] = await pairSessions(chat, 0, 1);
  results.pairOneSessionMs = Math.round(performance.now() - startedAt);
  log(`paired one session in ${String(results.pairOneSessionMs)} ms`);
  return driver!;
}

async function measureSessionMemory(chat: ChatFixture): Promise<ChatDriver[]> {
  const before = await settledMemory();
  const drivers: ChatDriver[] = [];
  const perCount: Record<string, unknown> = {};
  for (const count of config.sessionCounts) {
    drivers.push(...(await pairSessions(chat, 1 + drivers.length, 1 + count)));
    log(`${count} sessions connected; settling ${config.settleMs} ms`);
    await sleep(config.settleMs);
    const after = await settledMemory();
    perCount[count] = { ...perSessionKb(before, after, count), heapUsedMb: round(after.heapUsedMb), rssMb: round(after.rssMb) };
    log(`N=${count}: ${JSON.stringify(perCount[count])}`);
  }
  results.memoryPerConnectedSession = { baseline: before, byCount: perCount };
  return drivers;
}

async function timeReconnect(chat: ChatFixture, drivers: ChatDriver[]): Promise<ChatDriver[]> {
  await Promise.all(drivers.map((driver) => driver.stop()));
  const sessionIds = drivers.map((_, offset) => `ses_bench_${offset + 1}`);
  const startedAt = performance.now();
  const fresh = sessionIds.map((id) => chat.driver(id));
  await Promise.all(
    fresh.map(async (driver) => {
      const connected = nextEvent(driver, 'connected', () => true, 120_000);
      await driver.start();
      await connected;
    }),
  );
  const ms = performance.now() - startedAt;
  results.reconnectFromStoredCredentials = { sessions: fresh.length, totalMs: Math.round(ms), perSessionMs: round(ms / fresh.length, 2) };
  log(`reconnected ${fresh.length} sessions in ${Math.round(ms)} ms`);
  return fresh;
}

async function sendsPerSecond(drivers: ChatDriver[], total: number, contact: string): Promise<number> {
  const perDriver = Math.ceil(total / drivers.length);
  const startedAt = performance.now();
  await Promise.all(
    drivers.map(async (driver, index) => {
      for (let n = 0; n < perDriver; n++) await driver.sendText(contact, `bench ${index}/${n}`);
    }),
  );
  return Math.round((perDriver * drivers.length) / ((performance.now() - startedAt) / 1000));
}

async function soak(driver: ChatDriver, contact: string): Promise<void> {
  const samples: { sent: number; heapUsedMb: number; rssMb: number }[] = [];
  const step = Math.max(1, Math.floor(config.soakMessages / 10));
  const sample = async (sent: number) => {
    const memory: MemorySample = await settledMemory();
    samples.push({ sent, heapUsedMb: round(memory.heapUsedMb, 2), rssMb: round(memory.rssMb) });
  };
  await sample(0);
  const startedAt = performance.now();
  for (let sent = 1; sent <= config.soakMessages; sent++) {
    await driver.sendText(contact, `soak ${sent}`);
    if (sent % step === 0) await sample(sent);
  }
  const seconds = (performance.now() - startedAt) / 1000;
  const heap = samples.map((s) => s.heapUsedMb);
  results.soak = {
    messages: config.soakMessages,
    sendsPerSecond: Math.round(config.soakMessages / seconds),
    heapUsedMbFirst: heap[1],
    heapUsedMbLast: heap.at(-1),
    heapUsedMbMax: Math.max(...heap),
    samples,
  };
  log(`soak: ${JSON.stringify(results.soak)}`);
}

/** The same stored sessions reconnected by a process that never paired: a restarted service. */
async function measureFreshProcess(chat: ChatFixture, emulator: EmulatorProcess, sessionIds: string[]): Promise<void> {
  const child = fileURLToPath(new URL('./reconnect-child.js', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', child], {
    timeout: 240_000,
    env: {
      ...process.env,
      BENCH_CHILD_SESSIONS: sessionIds.join(','),
      BENCH_CHILD_WS_URL: emulator.wsUrl,
      BENCH_CHILD_CONTROL_URL: emulator.controlUrl,
      BENCH_CHILD_DATA_DIR: chat.dataDir,
      BENCH_CHILD_KEY: chat.secretKey.toString('hex'),
      BENCH_SETTLE_MS: String(config.settleMs),
    },
  });
  results.memoryPerSessionReconnectedInFreshProcess = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as unknown;
  log(`fresh process: ${JSON.stringify(results.memoryPerSessionReconnectedInFreshProcess)}`);
}

async function main(): Promise<void> {
  const emulator = await spawnEmulator();
  log(`emulator ${emulator.wsUrl} control ${emulator.controlUrl}`);
  const chat = await ChatFixture.create(emulator, { ackTimeoutMs: 30_000 });
  try {
    const contact = '17000000001';
    await chat.control.setContact(contact, { onNetwork: true, deliverAfterMs: 20, readAfterMs: 100 });
    const first = await timePairing(chat);
    const many = await measureSessionMemory(chat);
    const reconnected = await timeReconnect(chat, many);
    await Promise.all(reconnected.slice(20).map((driver) => driver.stop()));
    await sendsPerSecond([first], 200, contact); // warm-up: device lists, Signal sessions
    results.sendsPerSecondOneSession = await sendsPerSecond([first], config.sendsOneSession, contact);
    log(`one session: ${String(results.sendsPerSecondOneSession)} sends/s`);
    const twenty = reconnected.slice(0, 20);
    await sendsPerSecond(twenty, 200, contact);
    results.sendsPerSecondTwentySessions = await sendsPerSecond(twenty, config.sendsTwentySessions, contact);
    log(`20 sessions: ${String(results.sendsPerSecondTwentySessions)} sends/s in total`);
    await Promise.all(twenty.map((driver) => driver.stop()));
    await soak(first, contact);
    await first.stop();
    await measureFreshProcess(chat, emulator, reconnected.map((_, offset) => `ses_bench_${offset + 1}`));
  } finally {
    await chat.close();
    await emulator.stop();
  }
  console.log(JSON.stringify(results, null, 2));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
