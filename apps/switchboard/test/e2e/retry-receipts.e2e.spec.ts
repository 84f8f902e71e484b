import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, eventually } from '../support/http.js';
import { MODES_AND_ADDRESSINGS, startEmulatorProcess, startSwitchboardUnderTest } from '../support/harness.js';
import type { EmulatorProcess, SwitchboardUnderTest } from '../support/harness.js';

let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;

/**
 * A contact's phone that fails to decrypt asks for the message again (a retry receipt, naming the
 * contact by its LID as the network now does, or by its number as it did); Switchboard sends it again under the same id from the
 * message's own record (messaging's stream), so the status still reaches delivered, also when
 * the sessions process was killed between the send and the request.
 */
describe.each(MODES_AND_ADDRESSINGS)('resends after failed decryptions (%s mode, %s addressing)', (mode, addressing) => {
  let emulatorDir: string;
  let emulator: EmulatorProcess;
  let sut: SwitchboardUnderTest;
  let api: ApiClient;
  let sessionId: string;

  const statusOf = (messageId: string) => api.get(`/v1/messages/${messageId}`);

  beforeAll(async () => {
    emulatorDir = mkdtempSync(join(tmpdir(), 'sb-retry-emulator-'));
    emulator = await startEmulatorProcess(emulatorDir, addressing);
    sut = await startSwitchboardUnderTest(mode, { emulator });
    api = new ApiClient(sut.url, sut.apiKey);
    const created = await api.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, newPhone('1447'));
    sessionId = created.body.data.sessionId;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  }, 180_000);
  afterAll(async () => {
    await sut?.close();
    await emulator?.stop();
    if (emulatorDir) rmSync(emulatorDir, { recursive: true, force: true });
  });

  it('shows the message once and reaches delivered after two failed decryptions', async () => {
    const to = newPhone('1667');
    await sut.emulator.setContact(to, { deliverAfterMs: 50, readAfterMs: null, failDecryptNext: 2 });
    const sent = await api.post('/v1/messages/text', { sessionId, to, text: 'third copy decrypts' });
    expect(sent.status).toBe(201);
    const delivered = await eventually(() => statusOf(sent.body.data.messageId), (r) => r.body?.data?.status === 'delivered', 20_000);
    expect(delivered.body.data.deliveredAt).toEqual(expect.any(String));
    const shown = await sut.emulator.messages(to);
    expect(shown).toMatchObject([{ text: 'third copy decrypts', repeats: 0 }]);
    expect(await sut.emulator.setContact(to, {})).toMatchObject({ failDecryptNext: 0 });
  });

  it('answers a retry receipt that reaches the restarted sessions process', async () => {
    const to = newPhone('1667');
    // The phone gets (and fails) the message 3 s after it was sent, while sessions is restarting.
    await sut.emulator.setContact(to, { deliverAfterMs: 3_000, readAfterMs: null, failDecryptNext: 1 });
    const sent = await api.post('/v1/messages/text', { sessionId, to, text: 'asked for after a crash' });
    expect(sent.status).toBe(201);
    await sut.crashAndRestartSessions();
    await eventually(() => statusOf(sent.body.data.messageId), (r) => r.body?.data?.status === 'delivered', 30_000);
    expect(await sut.emulator.messages(to)).toMatchObject([{ text: 'asked for after a crash', repeats: 0 }]);
  });
});
