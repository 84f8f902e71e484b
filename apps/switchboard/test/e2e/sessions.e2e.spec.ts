import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, eventually } from '../support/http.js';
import { startSwitchboardUnderTest } from '../support/harness.js';
import type { Mode, SwitchboardUnderTest } from '../support/harness.js';

let phoneCounter = 0;
/** A fresh phone number per linked device, so tests never share a device on the network. */
const newPhone = () => `1555${String(process.pid % 1000).padStart(3, '0')}${String(phoneCounter++).padStart(4, '0')}`;

async function connectedSession(api: ApiClient, sut: SwitchboardUnderTest, name?: string) {
  const created = await api.post('/v1/sessions', name ? { name } : {});
  expect(created.status).toBe(201);
  const phone = newPhone();
  await sut.emulator.scan(created.body.data.qrCode, phone);
  const id = created.body.data.sessionId as string;
  await eventually(() => api.get(`/v1/sessions/${id}`), (r) => r.body?.data?.status === 'connected');
  return { id, phone };
}

describe.each<Mode>(['embedded', 'distributed'])('session endpoints over HTTP (%s mode)', (mode) => {
  let sut: SwitchboardUnderTest;
  let api: ApiClient;

  beforeAll(async () => {
    sut = await startSwitchboardUnderTest(mode);
    api = new ApiClient(sut.url, sut.apiKey);
  }, 180_000);
  afterAll(async () => sut?.close());

  it('creates a pending session with a scannable QR code, which connects once the phone scans it', async () => {
    const created = await api.post('/v1/sessions', { name: 'support line' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body.data).sort()).toEqual(['qrCode', 'sessionId', 'status']);
    expect(created.body.data).toMatchObject({ status: 'pending', sessionId: expect.stringMatching(/^ses_[0-9A-Z]{26}$/) });
    expect(created.body.data.qrCode).toMatch(/^data:image\/png;base64,/);
    const phone = newPhone();
    const scan = await sut.emulator.scan(created.body.data.qrCode, phone);
    expect(scan.phone).toBe(phone);
    const id = created.body.data.sessionId;
    const got = await eventually(() => api.get(`/v1/sessions/${id}`), (r) => r.body?.data?.status === 'connected');
    expect(got.body).toEqual({
      success: true,
      data: { sessionId: id, status: 'connected', statusReason: null, name: 'support line', createdAt: expect.any(String), lastActivity: expect.any(String) },
    });
    expect(Date.parse(got.body.data.lastActivity)).toBeGreaterThanOrEqual(Date.parse(got.body.data.createdAt));
  });

  it('pairs by code: with phoneNumber the create answers pairingCode beside the QR; a wrong code leaves it pending, the right one connects it', async () => {
    const phone = newPhone();
    const created = await api.post('/v1/sessions', { name: 'by code', phoneNumber: phone });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body.data).sort()).toEqual(['pairingCode', 'qrCode', 'sessionId', 'status']);
    const { sessionId: id, pairingCode } = created.body.data as { sessionId: string; pairingCode: string };
    expect(pairingCode).toMatch(/^[1-9A-HJ-NP-TV-Z]{4}-[1-9A-HJ-NP-TV-Z]{4}$/);
    const wrong = `${pairingCode.startsWith('A') ? 'B' : 'A'}${pairingCode.slice(1)}`;
    await expect(sut.emulator.pair(phone, wrong)).rejects.toMatchObject({ status: 422, code: 'code_incorrect' });
    expect((await api.get(`/v1/sessions/${id}`)).body.data.status).toBe('pending');
    expect((await api.get(`/v1/sessions/${id}/qr`)).status).toBe(200);
    await sut.emulator.pair(phone, pairingCode);
    await eventually(() => api.get(`/v1/sessions/${id}`), (r) => r.body?.data?.status === 'connected');
    expect((await sut.emulator.device(phone)).online).toBe(true);
  });

  it('refuses a phoneNumber that is not an international number with 400 VALIDATION_ERROR at phoneNumber, creating nothing', async () => {
    const before = (await api.get('/v1/sessions?limit=100')).body.data.total;
    for (const phoneNumber of ['+15551234567', '0151234567', '12345', '1555123456789012', 15551234567]) {
      const refused = await api.post('/v1/sessions', { phoneNumber });
      expect(refused.status, String(phoneNumber)).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'phoneNumber', message: expect.stringContaining('phoneNumber') }] });
    }
    expect((await api.get('/v1/sessions?limit=100')).body.data.total).toBe(before);
  });

  it('answers the same under /api/v1 as under /v1', async () => {
    const created = await api.post('/api/v1/sessions', {});
    expect(created.status).toBe(201);
    const viaApi = await api.get(`/api/v1/sessions/${created.body.data.sessionId}`);
    const viaV1 = await api.get(`/v1/sessions/${created.body.data.sessionId}`);
    expect(viaApi.body).toEqual(viaV1.body);
    expect(viaV1.body.data.name).toBeNull();
  });

  it('serves the current QR while pending and 409 SESSION_NOT_PENDING once connected', async () => {
    const created = await api.post('/v1/sessions', {});
    const qr = await api.get(`/v1/sessions/${created.body.data.sessionId}/qr`);
    expect(qr.status).toBe(200);
    expect(qr.body.data).toEqual({ qrCode: expect.stringMatching(/^data:image\/png;base64,/), expiresAt: expect.any(String) });
    const { id } = await connectedSession(api, sut);
    const refused = await api.get(`/v1/sessions/${id}/qr`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'SESSION_NOT_PENDING', requestId: refused.headers.get('x-request-id') });
  });

  it('lists newest first with status filter, paging and clamping, and rejects bad paging with 400', async () => {
    const { id: connectedId } = await connectedSession(api, sut, 'listed');
    const all = await api.get('/v1/sessions?limit=1000');
    expect(all.status).toBe(200);
    expect(all.body.data.limit).toBe(100);
    expect(all.body.data.offset).toBe(0);
    const created = all.body.data.sessions.map((s: { createdAt: string }) => Date.parse(s.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const connected = await api.get('/v1/sessions?status=connected');
    expect(connected.body.data.sessions.every((s: { status: string }) => s.status === 'connected')).toBe(true);
    expect(connected.body.data.sessions.map((s: { sessionId: string }) => s.sessionId)).toContain(connectedId);
    const page = await api.get('/v1/sessions?limit=1&offset=1');
    expect(page.body.data).toMatchObject({ limit: 1, offset: 1, total: all.body.data.total });
    expect(page.body.data.sessions).toEqual([all.body.data.sessions[1]]);
    for (const bad of ['limit=0', 'limit=abc', 'offset=-1', 'status=sleeping']) {
      const refused = await api.get(`/v1/sessions?${bad}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('deletes a session: logged out on the network, 404 afterwards', async () => {
    const { id, phone } = await connectedSession(api, sut);
    const deleted = await api.delete(`/v1/sessions/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, message: expect.any(String) });
    expect((await api.get(`/v1/sessions/${id}`)).status).toBe(404);
    await expect(sut.emulator.device(phone)).rejects.toMatchObject({ status: 404 });
  });

  it('checks whether a number is on the network through the session, keeps the answer, and limits new lookups per session', async () => {
    const { id } = await connectedSession(api, sut);
    const contact = newPhone();
    const stranger = newPhone();
    await sut.emulator.setContact(stranger, { onNetwork: false, deliverAfterMs: null, readAfterMs: null });
    const known = await api.get(`/v1/sessions/${id}/contacts/${contact}`);
    expect([known.status, known.body.data.phone, known.body.data.onWhatsApp]).toEqual([200, contact, true]);
    // The LID as the network names it (the emulator's default LID addressing does).
    expect(known.body.data.lid).toMatch(/^\d+@lid$/);
    expect((await api.get(`/v1/sessions/${id}/contacts/${stranger}`)).body.data).toEqual({ phone: stranger, onWhatsApp: false });
    expect((await api.get(`/v1/sessions/${id}/contacts/not-a-number`)).status).toBe(400);
    expect((await api.get(`/v1/sessions/ses_01JD0000000000000000000000/contacts/${contact}`)).body.error.code).toBe('SESSION_NOT_FOUND');
    // 30 new numbers a minute per session (2 used above); kept answers do not count.
    for (let i = 0; i < 28; i++) expect((await api.get(`/v1/sessions/${id}/contacts/${newPhone()}`)).status).toBe(200);
    expect((await api.get(`/v1/sessions/${id}/contacts/${contact}`)).status).toBe(200);
    const refused = await api.get(`/v1/sessions/${id}/contacts/${newPhone()}`);
    expect([refused.status, refused.body.error.code]).toEqual([429, 'CONTACT_CHECK_LIMIT_REACHED']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers 404 SESSION_NOT_FOUND for unknown ids and for another account\'s sessions', async () => {
    const unknown = await api.get('/v1/sessions/ses_01JD0000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('SESSION_NOT_FOUND');
    const admin = new ApiClient(sut.url, sut.adminKey);
    const other = await admin.post('/v1/admin/accounts', { name: 'other', plan: 'basic' });
    expect(other.status).toBe(201);
    const mine = await api.post('/v1/sessions', {});
    const theirs = api.withKey(other.body.data.apiKey);
    const foreign = await theirs.get(`/v1/sessions/${mine.body.data.sessionId}`);
    expect(foreign.status).toBe(404);
    expect((await theirs.delete(`/v1/sessions/${mine.body.data.sessionId}`)).status).toBe(404);
    expect((await theirs.get('/v1/sessions')).body.data.total).toBe(0);
  });

  it('refuses a second active session on the free plan with 429 SESSION_LIMIT_REACHED', async () => {
    const admin = new ApiClient(sut.url, sut.adminKey);
    const account = await admin.post('/v1/admin/accounts', { plan: 'free' });
    const free = api.withKey(account.body.data.apiKey);
    expect((await free.post('/v1/sessions', {})).status).toBe(201);
    const second = await free.post('/v1/sessions', {});
    expect(second.status).toBe(429);
    expect(second.body.error).toMatchObject({ code: 'SESSION_LIMIT_REACHED', details: { limit: 1, used: 1 } });
  });

  it('retries a create with the same Idempotency-Key without making a second session', async () => {
    const admin = new ApiClient(sut.url, sut.adminKey);
    const account = await admin.post('/v1/admin/accounts', { plan: 'free' });
    const free = api.withKey(account.body.data.apiKey);
    const headers = { 'idempotency-key': `create-${account.body.data.accountId}` };
    const first = await free.post('/v1/sessions', { name: 'retried' }, headers);
    expect(first.status).toBe(201);
    // The retry of a create whose answer was lost (a 504, say): the same session, no 429 on the free plan.
    const retried = await free.post('/v1/sessions', { name: 'retried' }, headers);
    expect(retried.status).toBe(201);
    expect(retried.body.data).toEqual({ sessionId: first.body.data.sessionId, status: 'pending', qrCode: expect.stringMatching(/^data:image\/png;base64,/) });
    const listed = await free.get('/v1/sessions');
    expect(listed.body.data.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([first.body.data.sessionId]);
    const otherBody = await free.post('/v1/sessions', { name: 'another' }, headers);
    expect(otherBody.status).toBe(409);
    expect(otherBody.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const refused = await admin.post('/v1/admin/accounts', { plan: 'free' }, { 'idempotency-key': 'acct-1' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details[0].path).toBe('headers.idempotency-key');
  });

  it('leaves a create\'s Idempotency-Key free when the create failed (429), whatever the retry\'s body', async () => {
    const admin = new ApiClient(sut.url, sut.adminKey);
    const account = await admin.post('/v1/admin/accounts', { plan: 'free' });
    const free = api.withKey(account.body.data.apiKey);
    const held = await free.post('/v1/sessions', {});
    const headers = { 'idempotency-key': `full-${account.body.data.accountId}` };
    const refused = await free.post('/v1/sessions', { name: 'first try' }, headers);
    expect([refused.status, refused.body.error?.code]).toEqual([429, 'SESSION_LIMIT_REACHED']);
    expect((await free.delete(`/v1/sessions/${held.body.data.sessionId}`)).status).toBe(200);
    const created = await free.post('/v1/sessions', { name: 'second try' }, headers);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const listed = await free.get('/v1/sessions');
    expect(listed.body.data.sessions.map((s: { name: string }) => s.name)).toEqual(['second try']);
  });

  it('keeps connected sessions connected across a SIGKILL of the process that holds them, without a new scan', async () => {
    const { id, phone } = await connectedSession(api, sut);
    await sut.crashAndRestartSessions();
    const after = await eventually(() => api.get(`/v1/sessions/${id}`), (r) => r.body?.data?.status === 'connected');
    expect(after.body.data.status).toBe('connected');
    const device = await eventually(() => sut.emulator.device(phone), (d) => d.online);
    expect(device.online).toBe(true);
  });
});
