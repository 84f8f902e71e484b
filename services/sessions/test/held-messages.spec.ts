import { ulid } from 'ulid';
import { MessagingSubjects, SessionsSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, uniquePhone } from './harness.js';

/**
 * A contact that writes by LID alone, before Switchboard knows its number: the driver holds the
 * message (sealed, with the credentials) until the number is known. Across a restart of the
 * sessions service, that message still reaches messaging, once, and only then leaves the store.
 */
describe('a LID-only message held across a restart of the sessions service', () => {
  let h: Harness;
  const recorded: { networkMessageId: string; from: string; text?: string }[] = [];

  beforeAll(async () => {
    h = await Harness.start();
    await h.bus.subscribe(MessagingSubjects.recordInbound.subject, (m) => {
      const data = m.data as { networkMessageId: string; from: string; content: { type: string; text?: string } };
      recorded.push({ networkMessageId: data.networkMessageId, from: data.from, text: data.content.text });
      return { messageId: `msg_${ulid()}`, recorded: true } as never;
    });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  const heldRows = (sessionId: string) =>
    h.readRow<{ n: number }>('chat-credentials.sqlite', "SELECT COUNT(*) AS n FROM chat_credentials WHERE session_id = ? AND kind = 'lid-held'", sessionId).n;

  it('reaches messaging after the restart when the stored mapping names the sender, and is then forgotten', async () => {
    const accountId = await h.quota.account('enterprise');
    const me = uniquePhone();
    const sessionId = await h.connectedSession(accountId, me);
    const contact = uniquePhone();
    await h.control.setContact(contact, { deliverAfterMs: 20, readAfterMs: null });
    await h.control.send(contact, { to: me, text: 'anyone there?', alternate: false } as never);
    await expect.poll(() => heldRows(sessionId), { timeout: 5_000 }).toBeGreaterThan(0);
    expect(recorded.filter((r) => r.text === 'anyone there?')).toEqual([]);
    // The send's contact lookup stores the LID mapping, and no mapping update follows: still held.
    await h.call(SessionsSubjects.send, { accountId, sessionId, messageId: `msg_${ulid()}`, to: contact, content: { type: 'text', text: 'yes, who is this?' } });

    await h.restart();
    await h.statusBecomes(accountId, sessionId, 'connected');
    await expect.poll(() => recorded.filter((r) => r.text === 'anyone there?'), { timeout: 10_000 }).toEqual([
      expect.objectContaining({ from: contact }),
    ]);
    await expect.poll(() => heldRows(sessionId), { timeout: 5_000 }).toBe(0);
  });
});
