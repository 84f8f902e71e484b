import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, eventually } from '../support/http.js';
import { MODES_AND_ADDRESSINGS, startSwitchboardUnderTest } from '../support/harness.js';
import type { SwitchboardUnderTest } from '../support/harness.js';
import { MP3, MP4, PDF, PNG, pngOfSize, serveFiles, sha256 } from '../support/media.js';

let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;

describe.each(MODES_AND_ADDRESSINGS)('message endpoints over HTTP (%s mode, %s addressing)', (mode, addressing) => {
  let sut: SwitchboardUnderTest;
  let api: ApiClient;
  let sessionId: string;
  let files: Awaited<ReturnType<typeof serveFiles>>;

  const contactMessages = (phone: string) => sut.emulator.messages(phone);
  const status = (messageId: string) => api.get(`/v1/messages/${messageId}`);
  const readEventually = (messageId: string) => eventually(() => status(messageId), (r) => r.body?.data?.status === 'read');

  beforeAll(async () => {
    sut = await startSwitchboardUnderTest(mode, { addressing });
    api = new ApiClient(sut.url, sut.apiKey);
    files = await serveFiles({ '/report.pdf': { bytes: PDF, type: 'application/pdf' } });
    const created = await api.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, newPhone('1444'));
    sessionId = created.body.data.sessionId;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  }, 180_000);
  afterAll(async () => {
    await files?.close();
    await sut?.close();
  });

  it('sends a text that the contact receives verbatim, then shows delivered and read', async () => {
    const to = newPhone('1666');
    const sent = await api.post('/v1/messages/text', { sessionId, to, text: 'Your order #42 has shipped 📦' });
    expect(sent.status).toBe(201);
    expect(sent.body.data).toEqual({ messageId: expect.stringMatching(/^msg_[0-9A-Z]{26}$/), status: 'sent', timestamp: expect.any(String) });
    expect(sent.headers.get('ratelimit-limit')).not.toBeNull();
    const [received] = await eventually(() => contactMessages(to), (m) => m.length === 1);
    expect(received).toMatchObject({ type: 'text', text: 'Your order #42 has shipped 📦' });
    const read = await readEventually(sent.body.data.messageId);
    expect(read.body.data).toMatchObject({ messageId: sent.body.data.messageId, status: 'read', deliveredAt: expect.any(String), readAt: expect.any(String) });
  });

  it('sends a reply quoting an earlier message of the same session', async () => {
    const to = newPhone('1666');
    const first = await api.post('/v1/messages/text', { sessionId, to, text: 'first' });
    const reply = await api.post('/v1/messages/text', { sessionId, to, text: 'second', quotedMessageId: first.body.data.messageId });
    expect(reply.status).toBe(201);
    const received = await eventually(() => contactMessages(to), (m) => m.length === 2);
    const original = received.find((m) => m.text === 'first');
    expect(received.find((m) => m.text === 'second')?.quotedId).toBe(original?.id);
  });

  it('sends media from base64, a data URL and an http URL, byte for byte', async () => {
    const to = newPhone('1666');
    const cases = [
      { body: { mediaType: 'image', media: `data:image/png;base64,${PNG.toString('base64')}`, caption: 'look' }, bytes: PNG, expect: { type: 'image', caption: 'look' } },
      { body: { mediaType: 'audio', media: MP3.toString('base64') }, bytes: MP3, expect: { type: 'audio' } },
      { body: { mediaType: 'video', media: MP4.toString('base64'), caption: 'clip' }, bytes: MP4, expect: { type: 'video', caption: 'clip' } },
      { body: { mediaType: 'document', media: files.url('/report.pdf'), filename: 'report.pdf' }, bytes: PDF, expect: { type: 'document', filename: 'report.pdf' } },
    ];
    for (const c of cases) {
      const sent = await api.post('/v1/messages/media', { sessionId, to, ...c.body });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      expect(sent.body.data).toMatchObject({ status: 'sent', mediaType: c.body.mediaType });
    }
    const received = await eventually(() => contactMessages(to), (m) => m.length === cases.length);
    for (const c of cases) {
      expect(received.find((m) => m.type === c.expect.type)).toMatchObject({ ...c.expect, sha256: sha256(c.bytes) });
    }
  });

  it('sends a 4 MB inline image, which the contact receives byte for byte', async () => {
    const to = newPhone('1666');
    const image = pngOfSize(4_000_000);
    const sent = await api.post('/v1/messages/media', { sessionId, to, mediaType: 'image', media: `data:image/png;base64,${image.toString('base64')}` });
    expect([201, 202], JSON.stringify(sent.body)).toContain(sent.status);
    expect(sent.body.data).toMatchObject({ mediaType: 'image' });
    const [received] = await eventually(() => contactMessages(to), (m) => m.length === 1, 60_000);
    expect(received).toMatchObject({ type: 'image', sha256: sha256(image) });
  });

  it('answers 422 MEDIA_TOO_LARGE for an inline image over 5 MiB and 413 for a body over 24 MiB, each naming its limit', async () => {
    const to = newPhone('1666');
    const image = pngOfSize(5 * 1024 * 1024 + 1);
    const tooLarge = await api.post('/v1/messages/media', { sessionId, to, mediaType: 'image', media: image.toString('base64') });
    expect(tooLarge.status).toBe(422);
    expect(tooLarge.body.error).toMatchObject({
      code: 'MEDIA_TOO_LARGE', message: expect.stringContaining('5 MiB'), details: { mediaType: 'image', limit: 5 * 1024 * 1024, size: image.length },
    });
    const body = JSON.stringify({ sessionId, to, mediaType: 'document', media: Buffer.alloc(19 * 1024 * 1024).toString('base64') });
    const overLimit = await api.sendRaw('POST', '/v1/messages/media', body);
    expect(overLimit.status).toBe(413);
    expect(overLimit.body.error).toMatchObject({
      code: 'PAYLOAD_TOO_LARGE', message: expect.stringContaining('24 MiB'), details: { limit: 24 * 1024 * 1024, size: Buffer.byteLength(body) },
    });
    expect(await contactMessages(to)).toEqual([]);
  });

  it('sends a location and a buttons message with exactly the given fields', async () => {
    const to = newPhone('1666');
    const location = await api.post('/v1/messages/location', { sessionId, to, latitude: 52.52, longitude: 13.405, name: 'Office', address: 'Unter den Linden 1' });
    expect(location.status).toBe(201);
    const buttons = await api.post('/v1/messages/buttons', {
      sessionId, to, text: 'Confirm?', footer: 'Reply below', buttons: [{ id: 'yes', text: 'Yes' }, { id: 'no', text: 'No' }],
    });
    expect(buttons.status).toBe(201);
    const received = await eventually(() => contactMessages(to), (m) => m.length === 2);
    expect(received.find((m) => m.type === 'location')).toMatchObject({ latitude: 52.52, longitude: 13.405, name: 'Office', address: 'Unter den Linden 1' });
    expect(received.find((m) => m.type === 'buttons')).toMatchObject({
      text: 'Confirm?', footer: 'Reply below', buttons: [{ id: 'yes', text: 'Yes' }, { id: 'no', text: 'No' }],
    });
    await readEventually(buttons.body.data.messageId);
  });

  it('answers 422 for a recipient not on the network, 409 for a session that is not connected, 404 for unknown ids', async () => {
    const offNetwork = newPhone('1777');
    await sut.emulator.setContact(offNetwork, { onNetwork: false });
    const refused = await api.post('/v1/messages/text', { sessionId, to: offNetwork, text: 'hi' });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('RECIPIENT_NOT_ON_CHAT_NETWORK');
    // The message got an id before it failed: the answer names it, and its status is readable.
    const failedId = refused.body.error.details.messageId;
    expect(failedId).toMatch(/^msg_/);
    expect((await status(failedId)).body.data).toMatchObject({ messageId: failedId, status: 'failed', error: { code: 'RECIPIENT_NOT_ON_CHAT_NETWORK' } });
    const pending = await api.post('/v1/sessions', {});
    const notConnected = await api.post('/v1/messages/text', { sessionId: pending.body.data.sessionId, to: newPhone('1666'), text: 'hi' });
    expect(notConnected.status).toBe(409);
    expect(notConnected.body.error).toMatchObject({ code: 'SESSION_NOT_CONNECTED', details: { status: 'pending' } });
    const unknown = await status('msg_01JD0000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('MESSAGE_NOT_FOUND');
  });

  it('validates every field and reports all problems with their paths', async () => {
    const bad = await api.post('/v1/messages/buttons', {
      sessionId, to: '+1 555', text: '', buttons: [{ id: 'a', text: 'x'.repeat(21) }, { id: 'a', text: 'ok' }, { id: 'c', text: 'c' }, { id: 'd', text: 'd' }],
    });
    expect(bad.status).toBe(400);
    const paths = bad.body.error.details.map((d: { path: string }) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['to', 'text', 'buttons']));
    const unknownField = await api.post('/v1/messages/text', { sessionId, to: '15551234567', text: 'x', priority: 'high' });
    expect(unknownField.status).toBe(400);
  });

  it('replays an Idempotency-Key without sending twice, and refuses the key with another body', async () => {
    const to = newPhone('1666');
    const headers = { 'idempotency-key': `order-${to}` };
    const first = await api.post('/v1/messages/text', { sessionId, to, text: 'once' }, headers);
    const again = await api.post('/v1/messages/text', { sessionId, to, text: 'once' }, headers);
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    const other = await api.post('/v1/messages/text', { sessionId, to, text: 'changed' }, headers);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await contactMessages(to)).toHaveLength(1);
  });

  it('leaves an Idempotency-Key free after a failure that never reached the network (404, 409, 422), whatever the retry\'s body', async () => {
    const to = newPhone('1666');
    const offNetwork = newPhone('1777');
    await sut.emulator.setContact(offNetwork, { onNetwork: false });
    const pending = (await api.post('/v1/sessions', {})).body.data.sessionId;
    const failures = [
      { body: { sessionId: 'ses_01JD0000000000000000000000', to, text: 'unknown session' }, status: 404, code: 'SESSION_NOT_FOUND' },
      { body: { sessionId: pending, to, text: 'not connected' }, status: 409, code: 'SESSION_NOT_CONNECTED' },
      { body: { sessionId, to: offNetwork, text: 'nobody there' }, status: 422, code: 'RECIPIENT_NOT_ON_CHAT_NETWORK' },
    ];
    for (const [i, failure] of failures.entries()) {
      const headers = { 'idempotency-key': `retry-${to}-${i}` };
      const failed = await api.post('/v1/messages/text', failure.body, headers);
      expect([failed.status, failed.body.error?.code]).toEqual([failure.status, failure.code]);
      // The same request again runs again (and fails again), rather than replaying a stored answer...
      const again = await api.post('/v1/messages/text', failure.body, headers);
      expect([again.status, again.body.error?.code]).toEqual([failure.status, failure.code]);
      // ...and the corrected request under the same key is sent, not refused as a reused key.
      const fixed = await api.post('/v1/messages/text', { sessionId, to, text: `fixed ${i}` }, headers);
      expect(fixed.status, JSON.stringify(fixed.body)).toBe(201);
      const replayed = await api.post('/v1/messages/text', { sessionId, to, text: `fixed ${i}` }, headers);
      expect(replayed.body.data.messageId).toBe(fixed.body.data.messageId);
    }
    const received = await eventually(() => contactMessages(to), (m) => m.length === failures.length);
    expect(received.map((m) => m.text).sort()).toEqual(['fixed 0', 'fixed 1', 'fixed 2']);
  });

  it('stops at the free plan\'s daily limit with 429 and Retry-After, and never lets another account read a message', async () => {
    const admin = new ApiClient(sut.url, sut.adminKey);
    const account = await admin.post('/v1/admin/accounts', { plan: 'free' });
    const free = api.withKey(account.body.data.apiKey);
    const foreign = await free.get(`/v1/messages/${(await api.post('/v1/messages/text', { sessionId, to: newPhone('1666'), text: 'mine' })).body.data.messageId}`);
    expect(foreign.status).toBe(404);
    const created = await free.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, newPhone('1444'));
    const freeSession = created.body.data.sessionId;
    await eventually(() => free.get(`/v1/sessions/${freeSession}`), (r) => r.body?.data?.status === 'connected');
    const to = newPhone('1666');
    const results = await Promise.all(Array.from({ length: 55 }, (_, i) => free.post('/v1/messages/text', { sessionId: freeSession, to, text: `n${i}` })));
    expect(results.filter((r) => r.status === 201 || r.status === 202)).toHaveLength(50);
    const limited = results.filter((r) => r.status === 429);
    expect(limited).toHaveLength(5);
    expect(limited[0]!.body.error).toMatchObject({ code: 'DAILY_MESSAGE_LIMIT_REACHED', details: { limit: 50, used: 50 } });
    expect(Number(limited[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
