import { ulid } from 'ulid';
import type { ChatNetworkGate } from '@switchboard/chat-emulator';
import { ReadySubjects, SessionsSubjects } from '@switchboard/contracts';
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
    // The resumed socket opens in the background; a send meanwhile waits for it (up to the send deadline).
    const sent = await h.call(SessionsSubjects.send, { ...send, messageId: `msg_${ulid()}` });
    const got = await eventually(async () => (await h.control.messages(contact)).find((m) => m.id === sent.networkMessageId));
    expect(got).toMatchObject({ text: 'after restart' });
    expect(h.issuedQr.get(connected)?.length).toBe(codesBefore);
    expect(await h.control.device(phone)).toMatchObject({ phone, online: true });
    expect((await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 })).total).toBe(2);
  });
});

describe('stored sessions resuming one at a time (SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY=1)', () => {
  let slow: Harness;
  let gate: ChatNetworkGate;
  let accountId: string;
  const linked: { sessionId: string; phone: string }[] = [];
  beforeAll(async () => {
    // The gate holds the chat network's answer to new connections: a turn lasts as long as the test says.
    slow = await Harness.start({ env: { SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY: '1' }, gated: true });
    gate = slow.gate!;
    accountId = await slow.quota.account('enterprise');
    // Created one after the other: they resume oldest first, so the last one waits longest.
    for (let i = 0; i < 6; i++) {
      const phone = uniquePhone();
      linked.push({ sessionId: await slow.connectedSession(accountId, phone), phone });
    }
  }, 120_000);
  afterAll(async () => {
    await slow?.close();
  });

  const online = async (phones: string[]) => (await Promise.all(phones.map((phone) => slow.control.device(phone)))).map((d) => d.online);
  const heldAtGate = () => eventually(async () => (gate.heldCount === 1 ? true : undefined));

  it('answers ready while stored sessions still wait their turn, shows them connected meanwhile, then resumes every one', async () => {
    gate.hold();
    await slow.restart();
    const readiness = await slow.call(ReadySubjects.sessions, {});

    expect(readiness.ready).toBe(true);
    // One in its turn (its connection open, held at the gate), the other five waiting.
    expect(readiness.details['connections']?.detail).toBe('1 live, 5 waiting to resume');
    expect(await online(linked.map((s) => s.phone))).toEqual(linked.map(() => false));
    for (const { sessionId } of linked) expect((await slow.call(SessionsSubjects.get, { accountId, sessionId })).status).toBe('connected');

    gate.release();
    await eventually(async () => ((await online(linked.map((s) => s.phone))).every(Boolean) ? true : undefined));
    for (const { phone } of linked) expect((await slow.control.device(phone)).maxConcurrentConnections).toBe(1);
  });

  it('sends to a session still waiting its turn: the send waits for it, takes it to the front, and goes out', async () => {
    const [first, ...rest] = linked;
    const last = rest.pop()!;
    const contact = uniquePhone();
    gate.hold();
    await slow.restart();
    await heldAtGate();

    const sending = slow.call(SessionsSubjects.send, {
      accountId, sessionId: last.sessionId, messageId: `msg_${ulid()}`, to: contact, content: { type: 'text', text: 'while resuming' },
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    gate.releaseOne();
    await eventually(async () => ((await online([first!.phone]))[0] ? true : undefined));
    // The next connection to reach the network is the one the send waits for, not the next in line.
    await heldAtGate();
    gate.releaseOne();
    const sent = await sending;

    expect(await online([last.phone])).toEqual([true]);
    expect(await online(rest.map((s) => s.phone))).toEqual(rest.map(() => false));
    const got = await eventually(async () => (await slow.control.messages(contact)).find((m) => m.id === sent.networkMessageId));
    expect(got).toMatchObject({ text: 'while resuming' });
    gate.release();
    await eventually(async () => ((await online(rest.map((s) => s.phone))).every(Boolean) ? true : undefined));
  });
});
