import { ulid } from 'ulid';
import { MessagingSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, uniquePhone } from './harness.js';

/**
 * The network is told a message arrived as soon as Baileys decrypted it, and never sends it again:
 * a received media message whose download is still under way when the sessions service stops (a
 * rolling update, a handover) must still reach messaging, through the outbox, after the restart.
 */
describe('a received message on its way out when the sessions service stops', () => {
  let h: Harness;
  const recorded: { networkMessageId: string; from: string; type: string; caption?: string }[] = [];

  beforeAll(async () => {
    h = await Harness.start();
    await h.bus.subscribe(MessagingSubjects.recordInbound.subject, (m) => {
      const data = m.data as { networkMessageId: string; from: string; content: { type: string; media?: { caption?: string } } };
      recorded.push({ networkMessageId: data.networkMessageId, from: data.from, type: data.content.type, ...(data.content.media?.caption ? { caption: data.content.media.caption } : {}) });
      return { messageId: `msg_${ulid()}`, recorded: true } as never;
    });
  }, 60_000);
  afterAll(async () => {
    await h?.control.setMediaDelay(0);
    await h?.close();
  });

  it('is recorded: the stop waits for its media download, and the restarted service hands it to messaging', async () => {
    const accountId = await h.quota.account('enterprise');
    const me = uniquePhone();
    const sessionId = await h.connectedSession(accountId, me);
    const contact = uniquePhone();
    await h.control.setContact(contact, { deliverAfterMs: 20, readAfterMs: null });
    await h.control.setMediaDelay(2_000);
    const sent = await h.control.send(contact, { to: me, image: { base64: Buffer.from('a photo of the order').toString('base64'), caption: 'is this the one?' } });
    // Received and acknowledged to the network by now; its download waits on the slow media host.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(recorded.filter((r) => r.networkMessageId === sent.id)).toEqual([]);

    await h.restart();
    await h.control.setMediaDelay(0);
    await h.statusBecomes(accountId, sessionId, 'connected');
    await expect.poll(() => recorded.filter((r) => r.networkMessageId === sent.id), { timeout: 10_000 }).toEqual([
      { networkMessageId: sent.id, from: contact, type: 'media', caption: 'is this the one?' },
    ]);
  });
});
