import type { WAVersion } from '@whiskeysockets/baileys';
import { ulid } from 'ulid';
import { FeedSubjects, SessionsSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLED_WA_WEB_VERSION } from '../src/chat/baileys/wa-web-version.js';
import { eventually, Harness, uniquePhone } from './harness.js';

// The network retires WhatsApp Web versions (the emulator refuses older clients with 405); the
// test stands in for web.whatsapp.com's answer to "which version is current?".
const [primary, secondary, revision] = BUNDLED_WA_WEB_VERSION;
const newer = (by: number): WAVersion => [primary, secondary, revision + by];

let h: Harness;
let latest: WAVersion | undefined;
beforeAll(async () => {
  h = await Harness.start({ chatNetwork: () => ({ latestWaWebVersion: async () => latest }) });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

async function statusEvents(sessionId: string, count: number) {
  return eventually(async () => {
    const { events } = await h.call(FeedSubjects.sessions, { after: null, limit: 1000 });
    const mine = events.flatMap(({ event }) => (event.type === 'session.status' && event.data.sessionId === sessionId ? [event.data] : []));
    return mine.length === count ? mine.map(({ status, previousStatus, reason }) => ({ status, previousStatus, reason })) : undefined;
  });
}

describe('a WhatsApp Web version the network refuses', () => {
  it('is refreshed and the session reconnects with the current one', async () => {
    const accountId = await h.quota.account();
    const phone = uniquePhone();
    const sessionId = await h.connectedSession(accountId, phone);
    await h.control.setMinVersion(newer(1));
    latest = newer(1);
    await h.control.drop(phone);
    expect((await statusEvents(sessionId, 3))[2]).toEqual({ status: 'connected', previousStatus: 'connected', reason: 'reconnected' });
    const contact = uniquePhone();
    const sent = await h.call(SessionsSubjects.send, { accountId, sessionId, messageId: `msg_${ulid()}`, to: contact, content: { type: 'text', text: 'still here' } });
    expect(await eventually(async () => (await h.control.messages(contact)).find((m) => m.id === sent.networkMessageId))).toMatchObject({ text: 'still here' });
  }, 60_000);

  it('ends the session in error with statusReason version_rejected when the refreshed version is refused too', async () => {
    const accountId = await h.quota.account('free');
    const phone = uniquePhone();
    const sessionId = await h.connectedSession(accountId, phone);
    await h.control.setMinVersion(newer(5));
    await h.control.drop(phone);
    await h.statusBecomes(accountId, sessionId, 'error');
    const view = await h.call(SessionsSubjects.get, { accountId, sessionId });
    expect(view.statusReason).toEqual({
      code: 'version_rejected',
      message: expect.stringMatching(new RegExp(`^The chat network refuses WhatsApp Web version ${newer(1).join('\\.')} as outdated \\(connection failure 405\\)`)),
    });
    expect((await statusEvents(sessionId, 3))[2]).toEqual({ status: 'error', previousStatus: 'connected', reason: 'failed' });
    // The slot is freed right after the failure is recorded.
    await eventually(async () => ((await h.quota.activeSessions(accountId)) === 0 ? true : undefined), 5_000);
  }, 60_000);

  it('answers a new session CHAT_NETWORK_ERROR (rejected) at once and keeps nothing', async () => {
    const accountId = await h.quota.account('free');
    const failure = await h.call(SessionsSubjects.create, { accountId }).catch((error: unknown) => error);
    expect(failure).toMatchObject({
      code: 'CHAT_NETWORK_ERROR',
      details: { cause: 'rejected', detail: expect.stringContaining('refuses WhatsApp Web version') },
    });
    expect(await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 })).toMatchObject({ sessions: [], total: 0 });
    expect(await h.quota.activeSessions(accountId)).toBe(0);
    await h.control.setMinVersion(null);
  }, 60_000);
});
