import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ulid } from 'ulid';
import { EmulatorControlClient, startEmulator } from '@switchboard/chat-emulator';
import type { RunningEmulator } from '@switchboard/chat-emulator';
import { NatsBus } from '@switchboard/bus';
import { PrivateNatsServer } from '@switchboard/bus/testing';
import { ReadySubjects, SessionsSubjects } from '@switchboard/contracts';
import type { ReplyOf, RequestInput, SubjectContract } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, uniquePhone } from './harness.js';
import { Quota } from './quota.js';

// Distributed mode: the built entry point (`node dist/src/main.js`) on a private NATS, killed
// with SIGKILL while a session is connected, then started again on the same data dir.

const root = resolve(import.meta.dirname, '..');
const workspace = resolve(root, '../..');
let nats: PrivateNatsServer;
let emulator: RunningEmulator;
let bus: NatsBus;
let quota: Quota;
let dataDir: string;
let child: ChildProcess | undefined;
const secretKey = randomBytes(32).toString('hex');
const phone = uniquePhone();

beforeAll(async () => {
  // `nx run …:test` builds first; a bare `vitest run` gets the same guarantee here (cached when fresh).
  execFileSync(join(workspace, 'node_modules/.bin/nx'), ['run', '@switchboard/sessions:build', '--output-style=static'], { cwd: workspace, stdio: 'ignore' });
  // JetStream: the distributed mode keeps chat credentials and the sent log in KV buckets.
  nats = await PrivateNatsServer.start({ jetstream: true });
  emulator = await startEmulator({ port: 0, controlPort: 0 });
  bus = await NatsBus.connect({ servers: nats.url, name: 'sessions-test' });
  dataDir = mkdtempSync(join(tmpdir(), 'sb-sessions-dist-'));
  quota = await Quota.start(bus, dataDir);
}, 180_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  await quota?.close();
  await bus?.close();
  await emulator?.stop();
  await nats?.stop({ removeStore: true });
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

function startProcess(): ChildProcess {
  const env = {
    PATH: process.env['PATH'] ?? '',
    SWITCHBOARD_NATS_URL: nats.url,
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_CHAT_NETWORK: 'emulator',
    SWITCHBOARD_EMULATOR_URL: emulator.wsUrl,
    SWITCHBOARD_SECRET_KEY: secretKey,
  };
  return spawn(process.execPath, [join(root, 'dist/src/main.js')], { env, stdio: 'ignore' });
}

async function call<C extends SubjectContract>(contract: C, data: RequestInput<C>): Promise<ReplyOf<C>> {
  const reply = await bus.request(contract.subject, data, { timeoutMs: 30_000 });
  return contract.reply.parse(reply.data) as ReplyOf<C>;
}

async function untilReady(): Promise<void> {
  await eventually(async () => ((await call(ReadySubjects.sessions, {}).catch(() => undefined))?.ready ? true : undefined), 60_000);
}

async function killed(process: ChildProcess): Promise<void> {
  const exited = new Promise((resolveExit) => process.once('exit', resolveExit));
  process.kill('SIGKILL');
  await exited;
}

describe('the sessions process killed with SIGKILL', () => {
  it('comes back with every connected session connected, without a new scan, and sends', async () => {
    child = startProcess();
    await untilReady();
    // From another process a request is parsed at the boundary: a malformed one is refused.
    await expect(bus.request(SessionsSubjects.get.subject, { accountId: 'acc_1', sessionId: 'ses_1' }, { timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    const accountId = await quota.account('free');
    const { sessionId, qrCode } = await call(SessionsSubjects.create, { accountId, name: 'durable' });
    const control = new EmulatorControlClient(emulator.controlUrl);
    await control.scan(qrCode, phone);
    await eventually(async () => ((await call(SessionsSubjects.get, { accountId, sessionId })).status === 'connected' ? true : undefined));
    const linked = await control.device(phone);
    const contact = uniquePhone();
    const before = { accountId, sessionId, messageId: `msg_${ulid()}`, to: contact, content: { type: 'text' as const, text: 'sent before SIGKILL' } };
    const first = await call(SessionsSubjects.send, before);

    await killed(child);
    child = startProcess();
    await untilReady();

    expect(await call(SessionsSubjects.get, { accountId, sessionId })).toMatchObject({ status: 'connected', name: 'durable' });
    // Messaging asking again for a message acknowledged before the kill (its answer was lost):
    // the new process answers from the sent log and the network does not carry it a second time.
    expect(await eventually(() => call(SessionsSubjects.send, before).catch(() => undefined))).toEqual(first);
    const content = { type: 'text' as const, text: 'survived SIGKILL' };
    const sent = await eventually(() => call(SessionsSubjects.send, { accountId, sessionId, messageId: `msg_${ulid()}`, to: contact, content }).catch(() => undefined));
    const got = await eventually(async () => (await control.messages(contact)).find((m) => m.id === sent.networkMessageId));
    expect(got).toMatchObject({ text: 'survived SIGKILL' });
    expect((await control.messages(contact)).map((m) => [m.text, m.repeats])).toEqual([['sent before SIGKILL', 0], ['survived SIGKILL', 0]]);
    // Same linked device as before the kill: nobody scanned again.
    expect(await control.device(phone)).toMatchObject({ deviceId: linked.deviceId, linkedAt: linked.linkedAt, online: true });
  });

  it('stops on SIGTERM with exit code 0 without logging the device out', async () => {
    const running = child;
    if (!running) throw new Error('no sessions process');
    const exited = new Promise<number | null>((resolveExit) => running.once('exit', (code) => resolveExit(code)));
    running.kill('SIGTERM');
    expect(await exited).toBe(0);
    child = undefined;
    // Still linked (a logout would have unlinked it): the next start resumes it.
    expect(await new EmulatorControlClient(emulator.controlUrl).device(phone)).toMatchObject({ phone, deviceId: expect.any(Number) });
  });
});
