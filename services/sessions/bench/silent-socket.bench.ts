/**
 * How long a silent connection goes unnoticed with the production settings (20 s keepalive,
 * the default reconnect policy and send deadline): sessions are black-holed by the emulator (in
 * its own process) one after the other across a whole ping period, and each one's time to
 * `disconnected` (cause `silent`) and back to `connected` is measured, with what became of a send
 * made at the moment the silence began. Build, then `node dist/bench/silent-socket.bench.js`
 * (`BENCH_SESSIONS`, default 6).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatDriver } from '../src/chat/driver.js';
import { DEFAULT_KEEPALIVE_INTERVAL_MS } from '../src/chat/baileys/keepalive.js';
import { DEFAULT_RECONNECT_POLICY } from '../src/chat/baileys/reconnect-policy.js';
import { ChatFixture } from '../src/chat/testing/chat-fixture.js';
import { nextEvent } from '../src/chat/testing/driver-events.js';
import { pairWithPhone } from '../src/chat/testing/pair.js';
import { spawnEmulator } from './emulator-process.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 6);
const SEND_DEADLINE_MS = 10_000;

interface Trial {
  foundMs: number;
  backMs: number;
  send: string;
}

const log = (line: string) => console.log(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}`);

async function trial(chat: ChatFixture, driver: ChatDriver, phone: string, contact: string): Promise<Trial> {
  const lost = nextEvent(driver, 'disconnected', (event) => event.failure?.cause === 'silent', 120_000);
  const back = nextEvent(driver, 'connected', (event) => event.reconnected === true, 120_000);
  await chat.control.blackhole(phone);
  const startedAt = performance.now();
  const send = driver.sendText(contact, 'sent into the silence').then(
    () => `acknowledged after ${Math.round(performance.now() - startedAt)} ms`,
    (error: Error) => `failed after ${Math.round(performance.now() - startedAt)} ms: ${error.message}`,
  );
  await lost;
  const foundMs = Math.round(performance.now() - startedAt);
  await back;
  return { foundMs, backMs: Math.round(performance.now() - startedAt), send: await send };
}

async function main(): Promise<void> {
  const emulator = await spawnEmulator();
  const chat = await ChatFixture.create(emulator, { ackTimeoutMs: SEND_DEADLINE_MS, reconnect: DEFAULT_RECONNECT_POLICY });
  try {
    const sessions = [];
    for (let index = 0; index < SESSIONS; index++) {
      const phone = `1778${String(index).padStart(7, '0')}`;
      const contact = `1779${String(index).padStart(7, '0')}`;
      const driver = chat.driver(`ses_silent_bench_${index}`);
      await pairWithPhone(driver, chat.control, phone, 60_000);
      await chat.control.setContact(contact, { onNetwork: true, deliverAfterMs: 20, readAfterMs: null });
      await driver.sendText(contact, 'before the silence');
      sessions.push({ driver, phone, contact });
    }
    log(`${SESSIONS} sessions connected; keepalive ${DEFAULT_KEEPALIVE_INTERVAL_MS} ms; black-holing one every ${Math.round(DEFAULT_KEEPALIVE_INTERVAL_MS / SESSIONS)} ms`);
    const cpuBefore = process.cpuUsage();
    const emulatorCpuBefore = (await chat.control.health()).process.cpuMs;
    const trials: Promise<Trial>[] = [];
    for (const { driver, phone, contact } of sessions) {
      trials.push(trial(chat, driver, phone, contact));
      // Spread over one ping period: each silence begins at another point of its socket's cycle.
      await sleep(DEFAULT_KEEPALIVE_INTERVAL_MS / SESSIONS);
    }
    const results = await Promise.all(trials);
    const cpu = process.cpuUsage(cpuBefore);
    const emulatorCpuMs = (await chat.control.health()).process.cpuMs - emulatorCpuBefore;
    for (const [index, result] of results.entries()) log(`session ${index}: silence found after ${result.foundMs} ms, reconnected after ${result.backMs} ms; the send ${result.send}`);
    const found = results.map((r) => r.foundMs).sort((a, b) => a - b);
    const back = results.map((r) => r.backMs).sort((a, b) => a - b);
    const summary = {
      sessions: SESSIONS,
      keepAliveIntervalMs: DEFAULT_KEEPALIVE_INTERVAL_MS,
      foundMs: { min: found[0], median: found[Math.floor(found.length / 2)], max: found.at(-1) },
      reconnectedMs: { min: back[0], median: back[Math.floor(back.length / 2)], max: back.at(-1) },
      driverCpuMsPerSession: Math.round((cpu.user + cpu.system) / 1000 / SESSIONS),
      emulatorCpuMsPerSession: Math.round(emulatorCpuMs / SESSIONS),
    };
    console.log(JSON.stringify(summary));
  } finally {
    await chat.close();
    await emulator.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
