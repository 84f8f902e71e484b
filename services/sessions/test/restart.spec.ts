import { ulid } from 'ulid';
import { SessionsSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, Harness, uniquePhone } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('a restart of the sessions service', () => {
  it('resumes connected sessions from stored credentials without a scan, and times out pending ones', async () => {
    const accountId = await h.quota.account('basic');
    const phone = uniquePhone();
    const contact = uniquePhone();
    const connected = await h.connectedSession(accountId, phone, 'survivor');
    const pending = (await h.call(SessionsSubjects.create, { accountId })).sessionId;
    const codesBefore = h.issuedQr.get(connected)?.length;

    // Closing without logout is what a crash leaves on the network; the data dir stays.
    await h.restart();

    expect((await h.call(SessionsSubjects.get, { accountId, sessionId: connected })).status).toBe('connected');
    await h.statusBecomes(accountId, pending, 'timeout');
    expect(await h.quota.activeSessions(accountId)).toBe(1);

    const send = { accountId, sessionId: connected, to: contact, content: { type: 'text' as const, text: 'after restart' } };
    // The resumed socket opens asynchronously; until then a send answers CHAT_NETWORK_ERROR (retryable).
    const sent = await eventually(() => h.call(SessionsSubjects.send, { ...send, messageId: `msg_${ulid()}` }).catch(() => undefined));
    const got = await eventually(async () => (await h.control.messages(contact)).find((m) => m.id === sent.networkMessageId));
    expect(got).toMatchObject({ text: 'after restart' });
    expect(h.issuedQr.get(connected)?.length).toBe(codesBefore);
    expect(await h.control.device(phone)).toMatchObject({ phone, online: true });
    expect((await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 })).total).toBe(2);
  });
});
