import { ulid } from 'ulid';
import { FeedSubjects, SessionsSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, Harness, uniquePhone } from './harness.js';

// A connected session whose socket stays open while the network answers nothing (the emulator
// black-holes the device). Pings every second here (20 s in production), so the silence is found
// in about 6 s; the send deadline is long enough for a send made meanwhile to wait it out.

let h: Harness;
const logs: Record<string, unknown>[] = [];
beforeAll(async () => {
  h = await Harness.start({
    chatNetwork: () => ({ keepAliveIntervalMs: 1_000, reconnect: { initialDelayMs: 100, maxDelayMs: 100 } }),
    env: { SWITCHBOARD_SEND_DEADLINE_MS: '30000' },
    onLog: (line) => logs.push(line),
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const send = (accountId: string, sessionId: string, to: string, text: string) =>
  h.call(SessionsSubjects.send, { accountId, sessionId, messageId: `msg_${ulid()}`, to, content: { type: 'text', text } });

describe('a session whose connection goes silent', () => {
  it('is reconnected, told as session.status reconnected, stays connected, and a send made meanwhile goes out after the reconnect', async () => {
    const accountId = await h.quota.account();
    const phone = uniquePhone();
    const sessionId = await h.connectedSession(accountId, phone);
    const contact = uniquePhone();
    await h.control.setContact(contact, { onNetwork: true, deliverAfterMs: 20, readAfterMs: null });
    await send(accountId, sessionId, contact, 'before');

    await h.control.blackhole(phone);
    const sent = await send(accountId, sessionId, contact, 'during the silence');
    const received = await eventually(async () => (await h.control.messages(contact)).find((m) => m.id === sent.networkMessageId));
    expect(received).toMatchObject({ text: 'during the silence', repeats: 0 });

    const statuses = await eventually(async () => {
      const { events } = await h.call(FeedSubjects.sessions, { after: null, limit: 1000 });
      const mine = events.flatMap(({ event }) => (event.type === 'session.status' && event.data.sessionId === sessionId ? [event.data] : []));
      return mine.length === 3 ? mine : undefined;
    });
    expect(statuses.map(({ status, previousStatus, reason }) => ({ status, previousStatus, reason }))).toEqual([
      { status: 'pending', previousStatus: null, reason: 'created' },
      { status: 'connected', previousStatus: 'pending', reason: 'paired' },
      { status: 'connected', previousStatus: 'connected', reason: 'reconnected' },
    ]);
    expect(await h.call(SessionsSubjects.get, { accountId, sessionId })).toMatchObject({ status: 'connected', statusReason: null });
    expect(logs.filter((line) => line['cause'] === 'silent')).toEqual([
      expect.objectContaining({ level: 'warn', sessionId, msg: expect.stringContaining('stopped answering an open connection: nothing received for over 6 s') }),
    ]);
    expect(await h.control.device(phone)).toMatchObject({ online: true, connections: 1, maxConcurrentConnections: 1 });
  }, 60_000);
});
