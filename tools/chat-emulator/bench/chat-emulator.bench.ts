/**
 * Emulator server cost per account and per message, with the emulator in its OWN process (as
 * `npm run emulator` runs it) so client CPU does not count. Real Baileys clients run here.
 *
 *   npm run build -w @switchboard/chat-emulator && node tools/chat-emulator/dist/bench/chat-emulator.bench.js
 *   BENCH_SESSIONS=50 BENCH_MESSAGES=200 node ...   (messages per session, sent sequentially per session)
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { Agent } from 'node:https';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import makeWASocket, { WA_CERT_DETAILS, initAuthCreds } from '@whiskeysockets/baileys';
import type { WASocket } from '@whiskeysockets/baileys';
import { EmulatorControlClient } from '../src/control-client.js';
import type { EmulatorHealth } from '../src/control-client.js';
import { MemoryKeyStore } from '../src/key-store.js';
import { silentLogger } from '../src/logger.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200);
const CONTACT = '15559990000';

interface Emulator {
  child: ChildProcess;
  wsUrl: string;
  control: EmulatorControlClient;
}

const startEmulatorProcess = (): Promise<Emulator> =>
  new Promise((resolve, reject) => {
    const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.js');
    const child = spawn(process.execPath, ['--expose-gc', main], { env: { ...process.env, SWITCHBOARD_EMULATOR_CONTROL_PORT: '0' } });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const ws = /WebSocket URL: (\S+)/.exec(out)?.[1];
      const control = /control URL:\s+(\S+)/.exec(out)?.[1];
      if (ws && control) resolve({ child, wsUrl: ws, control: new EmulatorControlClient(control) });
    });
    child.once('exit', (code) => reject(new Error(`emulator exited with ${code}`)));
  });

/** Learns what to trust from the loopback URL alone, like a client in another process must. */
const trust = async (wsUrl: string): Promise<Agent> => {
  const url = wsUrl.replace('ws://', 'http://').replace('/ws/chat', '/trust');
  const { rootPublicKey, mediaCertificatePem } = (await (await fetch(url)).json()) as { rootPublicKey: string; mediaCertificatePem: string };
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(rootPublicKey, 'hex');
  return new Agent({ ca: mediaCertificatePem });
};

const socketFor = (wsUrl: string, agent: Agent, auth: { creds: ReturnType<typeof initAuthCreds>; keys: MemoryKeyStore }): WASocket => {
  const sock = makeWASocket({
    waWebSocketUrl: wsUrl, auth, logger: silentLogger, fetchAgent: agent, markOnlineOnConnect: false,
    enableRecentMessageCache: false, shouldSyncHistoryMessage: () => false,
  });
  sock.ev.on('creds.update', (update) => Object.assign(auth.creds, update));
  return sock;
};

const once = (sock: WASocket, pick: (u: { connection?: string; qr?: string }) => string | undefined): Promise<string> =>
  new Promise((resolve) => {
    const listener = (u: { connection?: string; qr?: string }): void => {
      const value = pick(u);
      if (value !== undefined) {
        sock.ev.off('connection.update', listener);
        resolve(value);
      }
    };
    sock.ev.on('connection.update', listener);
  });

const link = async (emulator: Emulator, agent: Agent, phone: string): Promise<WASocket> => {
  const auth = { creds: initAuthCreds(), keys: new MemoryKeyStore() };
  const registering = socketFor(emulator.wsUrl, agent, auth);
  const qr = await once(registering, (u) => u.qr);
  const closed = once(registering, (u) => (u.connection === 'close' ? 'closed' : undefined));
  await emulator.control.scan(qr, phone);
  await closed;
  const sock = socketFor(emulator.wsUrl, agent, auth);
  await once(sock, (u) => (u.connection === 'open' ? 'open' : undefined));
  return sock;
};

const sendAll = async (sock: WASocket): Promise<void> => {
  for (let i = 0; i < MESSAGES; i++) await sock.sendMessage(`${CONTACT}@s.whatsapp.net`, { text: `message ${i}` });
};

const delta = (a: EmulatorHealth, b: EmulatorHealth) => ({
  cpuMs: b.process.cpuMs - a.process.cpuMs,
  heapBytes: b.process.heapUsedBytes - a.process.heapUsedBytes,
});

const run = async (): Promise<void> => {
  const emulator = await startEmulatorProcess();
  try {
    const agent = await trust(emulator.wsUrl);
    await emulator.control.setContact(CONTACT, { onNetwork: true, deliverAfterMs: 0, readAfterMs: 0 });
    const idle = await emulator.control.health(true);
    const phones = Array.from({ length: SESSIONS }, (_, i) => `1555800${String(i).padStart(4, '0')}`);
    const socks = await Promise.all(phones.map((phone) => link(emulator, agent, phone)));
    const linked = await emulator.control.health(true);
    const started = Date.now();
    await Promise.all(socks.map(sendAll));
    const seconds = (Date.now() - started) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 500));
    const sent = await emulator.control.health(true);
    const total = SESSIONS * MESSAGES;
    const perAccount = delta(idle, linked);
    const perMessage = delta(linked, sent);
    console.log(JSON.stringify({
      sessions: SESSIONS, messagesPerSession: MESSAGES, decrypted: sent.messages.decrypted, failed: sent.messages.failed,
      messagesPerSecond: Math.round(total / seconds),
      emulator: {
        perAccount: { cpuMs: +(perAccount.cpuMs / SESSIONS).toFixed(2), heapKB: +(perAccount.heapBytes / SESSIONS / 1024).toFixed(1) },
        perMessage: { cpuMs: +(perMessage.cpuMs / total).toFixed(3), heapBytes: Math.round(perMessage.heapBytes / total) },
        heapAfterMB: +(sent.process.heapUsedBytes / 1024 / 1024).toFixed(1),
      },
    }, null, 2));
    for (const sock of socks) sock.end(undefined);
  } finally {
    emulator.child.kill('SIGTERM');
  }
};

await run();
