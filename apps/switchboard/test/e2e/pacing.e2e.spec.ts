import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, eventually } from '../support/http.js';
import { startSwitchboardUnderTest } from '../support/harness.js';
import type { SwitchboardUnderTest } from '../support/harness.js';

let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;

// Safe pacing over HTTP (issue 15 item 8): a short send deadline and a long new-contact gap, so a
// second first message in a row waits past the deadline, and longer than messaging's retries of a
// failed delivery would last (3 calls and 2.5 s of pauses): only "still queued" keeps it alive.
const DEADLINE_MS = 1_000;
const NEW_CONTACT_GAP_MS = 8_000;

describe('safe pacing of sends over HTTP (embedded mode)', () => {
  let sut: SwitchboardUnderTest;
  let api: ApiClient;
  let sessionId: string;
  let linked: string;

  beforeAll(async () => {
    sut = await startSwitchboardUnderTest('embedded', {
      env: {
        SWITCHBOARD_SEND_DEADLINE_MS: String(DEADLINE_MS),
        SWITCHBOARD_PACING_GAP_MS: '500',
        SWITCHBOARD_PACING_NEW_CONTACT_GAP_MS: String(NEW_CONTACT_GAP_MS),
      },
    });
    api = new ApiClient(sut.url, sut.apiKey);
    const created = await api.post('/v1/sessions', {});
    linked = newPhone('1444');
    await sut.emulator.scan(created.body.data.qrCode, linked);
    sessionId = created.body.data.sessionId;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  }, 180_000);
  afterAll(async () => {
    await sut?.close();
  });

  it('answers 202 for a message that waits its turn past the deadline, then sends it, once', async () => {
    const [first, second] = [newPhone('1666'), newPhone('1666')];
    const a = await api.post('/v1/messages/text', { sessionId, to: first, text: 'first new contact' });
    expect(a.status).toBe(201);
    const started = Date.now();
    const b = await api.post('/v1/messages/text', { sessionId, to: second, text: 'second new contact' });
    expect(b.status).toBe(202);
    expect(b.body.data).toMatchObject({ status: 'pending' });
    const sent = await eventually(() => api.get(`/v1/messages/${b.body.data.messageId}`), (r) => r.body?.data?.status !== 'pending', 30_000);
    expect(['sent', 'delivered', 'read']).toContain(sent.body.data.status);
    const received = await eventually(() => sut.emulator.messages(second), (m) => m.length === 1);
    expect(received[0]).toMatchObject({ text: 'second new contact', repeats: 0 });
    const firstAt = Date.parse((await sut.emulator.messages(first))[0]!.receivedAt);
    expect(Date.parse(received[0]!.receivedAt) - firstAt).toBeGreaterThanOrEqual(NEW_CONTACT_GAP_MS);
    expect(Date.now() - started).toBeGreaterThanOrEqual(NEW_CONTACT_GAP_MS - DEADLINE_MS);
  }, 60_000);

  it('"typing": true shows the contact "typing…" before the message', async () => {
    const to = newPhone('1666');
    const sent = await api.post('/v1/messages/text', { sessionId, to, text: 'typed', typing: true });
    expect([201, 202]).toContain(sent.status);
    await eventually(() => sut.emulator.messages(to), (m) => m.length === 1);
    const states = await sut.emulator.chatStates(to);
    expect(states.map((s) => s.state)).toEqual(['composing', 'paused']);
    expect(states.every((s) => s.from === linked)).toBe(true);
  }, 60_000);

  it('refuses a typing flag that is not a boolean', async () => {
    const refused = await api.post('/v1/messages/text', { sessionId, to: newPhone('1666'), text: 'x', typing: 'yes' });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
