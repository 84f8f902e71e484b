import { ulid } from 'ulid';
import { isQueued, SessionsSubjects } from '@switchboard/contracts';
import type { ApiError, DeliverMessageReply } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, Harness, uniquePhone } from './harness.js';

// Safe pacing (issue 15 item 8), measured where it matters: the times the contacts' phones on the
// emulator got each message. Every plan is paced but premium, which is set to 0 (off).
const GAP_MS = 400;
const NEW_CONTACT_GAP_MS = 1_200;
const DEADLINE_MS = 1_500;

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({
    env: {
      SWITCHBOARD_PACING_GAP_MS: `${GAP_MS},premium=0`,
      SWITCHBOARD_PACING_NEW_CONTACT_GAP_MS: `${NEW_CONTACT_GAP_MS},premium=0`,
      SWITCHBOARD_SEND_DEADLINE_MS: String(DEADLINE_MS),
    },
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

interface Sent {
  to: string;
  reply: DeliverMessageReply;
  /** How many times sessions answered "still queued" before the message went out. */
  queuedAnswers: number;
}

/** sessions.send as messaging calls it: a "still queued by pacing" answer is asked again with the same id. */
async function send(accountId: string, sessionId: string, to: string, text: string): Promise<Sent> {
  const command = { accountId, sessionId, messageId: `msg_${ulid()}`, to, content: { type: 'text' as const, text } };
  for (let queuedAnswers = 0; ; queuedAnswers++) {
    try {
      return { to, reply: await h.call(SessionsSubjects.send, command), queuedAnswers };
    } catch (error) {
      if (!isQueued(error as ApiError)) throw error;
    }
  }
}

/** When each message reached its contact's phone, in the order they arrived. */
async function arrivals(sent: Sent[]): Promise<number[]> {
  const times: number[] = [];
  for (const { to, reply } of sent) {
    const got = await eventually(async () => (await h.control.messages(to)).find((m) => m.id === reply.networkMessageId));
    times.push(Date.parse(got.receivedAt));
  }
  return times.sort((a, b) => a - b);
}

const gaps = (times: number[]) => times.slice(1).map((t, i) => t - times[i]!);

/** The session's contacts on record for pacing (the embedded mode's SQLite file), and how many it wrote to first. */
function knownContacts(sessionId: string): { known: number; messagedFirst: number } {
  const sql = 'SELECT COUNT(*) AS known, COUNT(NULLIF(first_at, 0)) AS messagedFirst FROM messaged_contacts WHERE session_id = ?';
  const { known, messagedFirst } = h.readRow<{ known: number; messagedFirst: number }>('messaged-contacts.sqlite', sql, sessionId);
  return { known, messagedFirst };
}

async function pacedSession(plan: 'enterprise' | 'premium') {
  const accountId = await h.quota.account(plan);
  const phone = uniquePhone();
  return { accountId, phone, sessionId: await h.connectedSession(accountId, phone) };
}

describe('safe pacing of a session’s sends', () => {
  it('spaces first messages to new contacts by the new-contact gap, then a burst to known ones by the gap', async () => {
    const { accountId, sessionId } = await pacedSession('enterprise');
    const contacts = [uniquePhone(), uniquePhone(), uniquePhone()];

    const first = await Promise.all(contacts.map((to) => send(accountId, sessionId, to, `hello ${to}`)));
    const firstGaps = gaps(await arrivals(first));
    for (const gap of firstGaps) expect(gap).toBeGreaterThanOrEqual(NEW_CONTACT_GAP_MS);

    // Known contacts now: a burst round robin over them waits the shorter gap between recipients.
    const burst = await Promise.all([...contacts, ...contacts].map((to, i) => send(accountId, sessionId, to, `burst ${i}`)));
    const burstGaps = gaps(await arrivals(burst));
    for (const gap of burstGaps) expect(gap).toBeGreaterThanOrEqual(GAP_MS);
    // Not the new-contact rate (at most gap + 50 % jitter, plus the way there).
    expect(Math.min(...burstGaps)).toBeLessThan(NEW_CONTACT_GAP_MS);
  }, 60_000);

  it('does not space messages to the same recipient', async () => {
    const { accountId, sessionId } = await pacedSession('enterprise');
    const to = uniquePhone();
    const sent = await Promise.all([1, 2, 3, 4].map((i) => send(accountId, sessionId, to, `same ${i}`)));
    // Paced, every message would wait the gap after the one before; unpaced, some go sooner (under
    // load a single send may take longer than the gap, so not all of them need to).
    expect(Math.min(...gaps(await arrivals(sent)))).toBeLessThan(GAP_MS);
  }, 60_000);

  it('paces nothing on a plan set to 0', async () => {
    const { accountId, sessionId } = await pacedSession('premium');
    const contacts = [1, 2, 3, 4, 5].map(() => uniquePhone());
    const sent = await Promise.all(contacts.map((to) => send(accountId, sessionId, to, `unpaced ${to}`)));
    // Paced as new contacts, every one of these five would wait 1200 ms after the one before.
    expect(Math.min(...gaps(await arrivals(sent)))).toBeLessThan(GAP_MS);
    expect(sent.every((s) => s.queuedAnswers === 0)).toBe(true);
  }, 60_000);

  it('answers "queued" past the send deadline and still sends the message, once, when its turn comes', async () => {
    const { accountId, sessionId } = await pacedSession('enterprise');
    const [a, b, c] = [uniquePhone(), uniquePhone(), uniquePhone()];
    const started = Date.now();
    // Three new contacts: the third waits two new-contact gaps (≥ 2400 ms), past the 1500 ms deadline.
    const sent = await Promise.all([a, b, c].map((to) => send(accountId, sessionId, to, `late ${to}`)));
    const third = sent.find((s) => s.to === c)!;
    expect(third.queuedAnswers).toBeGreaterThanOrEqual(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * NEW_CONTACT_GAP_MS);
    const got = await h.control.messages(c);
    expect(got.filter((m) => m.id === third.reply.networkMessageId)).toHaveLength(1);
    expect(got[0]).toMatchObject({ text: `late ${c}`, repeats: 0 });
  }, 60_000);

  it('does not send a queued message its sender stopped asking for (it gave up on it), and the line goes on', async () => {
    const { accountId, sessionId } = await pacedSession('enterprise');
    const asked = [uniquePhone(), uniquePhone(), uniquePhone(), uniquePhone(), uniquePhone()];
    const abandoned = uniquePhone();
    const sending = asked.map((to) => send(accountId, sessionId, to, `wanted ${to}`));
    // Its turn comes after five new-contact gaps (≥ 6 s): asked once, answered queued, never asked again.
    const once = h.call(SessionsSubjects.send, { accountId, sessionId, messageId: `msg_${ulid()}`, to: abandoned, content: { type: 'text' as const, text: 'given up' } });
    await expect(once).rejects.toSatisfy((error: ApiError) => isQueued(error));
    await Promise.all(sending);
    const after = await send(accountId, sessionId, uniquePhone(), 'after the one given up');
    expect(after.reply.networkMessageId).toBeTruthy();
    expect(await h.control.messages(abandoned)).toEqual([]);
  }, 60_000);

  it('does not treat a contact that wrote first as new: replies go at the ordinary gap', async () => {
    const { accountId, sessionId, phone } = await pacedSession('enterprise');
    const contacts = [uniquePhone(), uniquePhone(), uniquePhone()];
    for (const from of contacts) await h.control.inbound(from, phone, `question from ${from}`);
    // The session hears them over its socket and records each as known, not as a first message.
    await expect.poll(() => knownContacts(sessionId), { timeout: 15_000 }).toEqual({ known: 3, messagedFirst: 0 });
    const replies = await Promise.all(contacts.map((to) => send(accountId, sessionId, to, `answer to ${to}`)));
    const replyGaps = gaps(await arrivals(replies));
    for (const gap of replyGaps) expect(gap).toBeGreaterThanOrEqual(GAP_MS);
    // As new contacts, every reply would wait the new-contact gap.
    expect(Math.min(...replyGaps)).toBeLessThan(NEW_CONTACT_GAP_MS);
  }, 60_000);

  it('remembers contacts already messaged across a restart: they are not new again', async () => {
    const { accountId, sessionId } = await pacedSession('enterprise');
    const [a, b] = [uniquePhone(), uniquePhone()];
    await send(accountId, sessionId, a, 'before restart a');
    await send(accountId, sessionId, b, 'before restart b');
    await h.restart();
    await h.statusBecomes(accountId, sessionId, 'connected');
    // Known contacts: spaced by the gap, not by the new-contact gap.
    const sent = await Promise.all([a, b, a, b].map((to, i) => send(accountId, sessionId, to, `after restart ${i}`)));
    const afterGaps = gaps(await arrivals(sent));
    for (const gap of afterGaps) expect(gap).toBeGreaterThanOrEqual(GAP_MS);
    expect(Math.min(...afterGaps)).toBeLessThan(NEW_CONTACT_GAP_MS);
  }, 90_000);
});

describe('"typing": true on a send', () => {
  it('shows the contact "typing…" (composing, then paused) before the message arrives', async () => {
    const { accountId, sessionId, phone } = await pacedSession('premium');
    const to = uniquePhone();
    const text = 'Your table is ready.';
    const command = { accountId, sessionId, messageId: `msg_${ulid()}`, to, content: { type: 'text' as const, text }, typing: true as const };
    const reply = await h.call(SessionsSubjects.send, command);
    const got = await eventually(async () => (await h.control.messages(to)).find((m) => m.id === reply.networkMessageId));
    const states = await h.control.chatStates(to);
    expect(states.map((s) => [s.state, s.from])).toEqual([['composing', phone], ['paused', phone]]);
    const [composing, paused] = states.map((s) => Date.parse(s.at));
    // About a person's pace for 20 characters (1.5 s), and the message only after it.
    expect(paused! - composing!).toBeGreaterThanOrEqual(1_400);
    expect(Date.parse(got.receivedAt)).toBeGreaterThanOrEqual(paused!);
  }, 60_000);

  it('shows nothing without it', async () => {
    const { accountId, sessionId } = await pacedSession('premium');
    const to = uniquePhone();
    await send(accountId, sessionId, to, 'no typing');
    expect(await h.control.chatStates(to)).toEqual([]);
  }, 60_000);
});
