import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatNetworkGate } from '@switchboard/chat-emulator';
import { ApiClient, eventually } from '../support/http.js';
import { startEmulatorProcess, startSwitchboardUnderTest } from '../support/harness.js';
import type { EmulatorProcess, Mode, SwitchboardUnderTest } from '../support/harness.js';

let phoneCounter = 0;
const newPhone = () => `1558${String(process.pid % 1000).padStart(3, '0')}${String(phoneCounter++).padStart(4, '0')}`;

/**
 * After a SIGKILL of the process holding the chat connections, with the chat network's answer to
 * every new connection held back (a relay in front of the emulator), no stored session can come
 * back online until it is released: what answers meanwhile does not wait for resumption.
 */
describe.each<Mode>(['embedded', 'distributed'])('a restart while stored sessions cannot resume yet (%s mode)', (mode) => {
  let emulatorDir: string;
  let emulator: EmulatorProcess;
  let gate: ChatNetworkGate;
  let sut: SwitchboardUnderTest;
  let api: ApiClient;
  const linked: { sessionId: string; phone: string }[] = [];

  beforeAll(async () => {
    emulatorDir = mkdtempSync(join(tmpdir(), 'sb-restart-emulator-'));
    emulator = await startEmulatorProcess(emulatorDir);
    gate = await ChatNetworkGate.start(emulator.wsUrl);
    sut = await startSwitchboardUnderTest(mode, { emulator: { ...emulator, wsUrl: gate.wsUrl } });
    api = new ApiClient(sut.url, sut.apiKey);
    for (let i = 0; i < 2; i++) {
      const created = await api.post('/v1/sessions', {});
      const phone = newPhone();
      await sut.emulator.scan(created.body.data.qrCode, phone);
      const sessionId = created.body.data.sessionId as string;
      await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
      linked.push({ sessionId, phone });
    }
  }, 180_000);
  afterAll(async () => {
    await sut?.close();
    await gate?.close();
    await emulator?.stop();
    if (emulatorDir) rmSync(emulatorDir, { recursive: true, force: true });
  });

  it('answers /readyz ready before the stored sessions are resumed, and shows them connected meanwhile', async () => {
    gate.hold();
    try {
      await sut.crashAndRestartSessions();
      const readyz = await fetch(`${sut.url}/readyz`);
      expect(readyz.status).toBe(200);
      for (const { sessionId, phone } of linked) {
        expect((await sut.emulator.device(phone)).online).toBe(false);
        expect((await api.get(`/v1/sessions/${sessionId}`)).body.data.status).toBe('connected');
      }
    } finally {
      gate.release();
    }
    for (const { phone } of linked) await eventually(() => sut.emulator.device(phone), (d) => d.online && d.connections === 1);
  });

  it('records what a contact sent while the session was down once it resumes (the network kept it, marked offline)', async () => {
    const [{ sessionId, phone }] = linked as [(typeof linked)[0]];
    const contact = newPhone();
    gate.hold();
    try {
      await sut.crashAndRestartSessions();
      expect((await sut.emulator.device(phone)).online).toBe(false);
      await sut.emulator.send(contact, { to: phone, text: 'sent while you were away' } as never);
    } finally {
      gate.release();
    }
    const received = await eventually(() => api.get(`/v1/messages?direction=in&contact=${contact}`), (r) => r.body?.data?.messages?.length >= 1);
    expect(received.body.data.messages).toHaveLength(1);
    expect(received.body.data.messages[0]).toMatchObject({ direction: 'in', sessionId, from: contact, text: 'sent while you were away' });
  });

  it('takes a send to a session still resuming: it waits for the connection and answers 201 sent', async () => {
    const [{ sessionId, phone }] = linked as [(typeof linked)[0]];
    const to = newPhone();
    gate.hold();
    let sending: ReturnType<ApiClient['post']> | undefined;
    try {
      await sut.crashAndRestartSessions();
      sending = api.post('/v1/messages/text', { sessionId, to, text: 'sent while resuming' });
      // Well inside the send deadline (10 s): the send is waiting for the session meanwhile.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect((await sut.emulator.device(phone)).online).toBe(false);
    } finally {
      gate.release();
    }
    const sent = await sending!;
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.data.status).toBe('sent');
    const received = await eventually(() => sut.emulator.messages(to), (m) => m.length === 1);
    expect(received[0]).toMatchObject({ text: 'sent while resuming' });
    expect((await sut.emulator.device(phone)).online).toBe(true);
  });
});
