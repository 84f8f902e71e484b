import { startEmulator, type RunningEmulator } from '@switchboard/chat-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatNetworkError } from '../errors.js';
import { ChatFixture, uniquePhone } from '../testing/chat-fixture.js';
import { nextEvent } from '../testing/driver-events.js';
import { waitForReceived } from '../testing/emulator-control.js';
import { pairWithPhone } from '../testing/pair.js';

// A connection that stays open while the network answers nothing (the emulator black-holes it: no
// frame read, none sent, not even the WebSocket close answered). Pings every second here, so it is
// found after about 6 s (the interval plus Baileys' 5 s, at a ping) instead of 20-42 s.
const KEEPALIVE_MS = 1_000;
/** Found at the second ping after the silence began at the latest, plus the cut of the close (2 s). */
const FOUND_WITHIN_MS = 2 * KEEPALIVE_MS + 5_000 + 2_000 + 1_000;

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, controlPort: 0 });
});
afterAll(async () => {
  await emulator?.stop();
});

async function pairedWithContact(chat: ChatFixture, sessionId: string) {
  const phone = uniquePhone();
  const driver = chat.driver(sessionId);
  await pairWithPhone(driver, chat.control, phone);
  const contact = uniquePhone('1444');
  await chat.control.setContact(contact, { onNetwork: true, deliverAfterMs: 20, readAfterMs: null });
  // The contact's devices are known before the silence (a first send asks the network for them).
  await driver.sendText(contact, 'before');
  return { driver, phone, contact };
}

describe('a connection that goes silent', () => {
  it('is found by its unanswered pings, reconnected, and a send written into the silence goes out after the reconnect', async () => {
    const chat = await ChatFixture.create(emulator, { keepAliveIntervalMs: KEEPALIVE_MS, ackTimeoutMs: 30_000, reconnect: { initialDelayMs: 100, maxDelayMs: 100 } });
    try {
      const { driver, phone, contact } = await pairedWithContact(chat, 'ses_silent');
      const lost = nextEvent(driver, 'disconnected', () => true, 30_000);
      const back = nextEvent(driver, 'connected', () => true, 30_000);
      await chat.control.blackhole(phone);
      const silentSince = Date.now();
      const sending = driver.sendText(contact, 'during the silence');

      expect(await lost).toEqual({
        reason: 'connection_lost',
        willReconnect: true,
        failure: { cause: 'silent', detail: 'the chat network stopped answering an open connection: nothing received for over 6 s, keepalive pings unanswered' },
      });
      expect(Date.now() - silentSince).toBeLessThan(FOUND_WITHIN_MS);
      expect(await back).toEqual({ phone, reconnected: true });

      const sent = await sending;
      expect(await waitForReceived(chat.control, contact, sent.id)).toMatchObject({ text: 'during the silence', repeats: 0 });
      expect(await chat.control.device(phone)).toMatchObject({ online: true, connections: 1, maxConcurrentConnections: 1, blackholed: false });
    } finally {
      await chat.close();
    }
  }, 60_000);

  it('fails a send at its deadline when the reconnect comes later, and does not send it afterwards', async () => {
    const chat = await ChatFixture.create(emulator, { keepAliveIntervalMs: KEEPALIVE_MS, ackTimeoutMs: 1_500 });
    try {
      const { driver, phone, contact } = await pairedWithContact(chat, 'ses_silent_deadline');
      const back = nextEvent(driver, 'connected', () => true, 30_000);
      await chat.control.blackhole(phone);
      const id = '3EB0SILENTDEADLINE01';
      await expect(driver.sendText(contact, 'too late', { id })).rejects.toThrow(new ChatNetworkError(`the network did not acknowledge message ${id} within 1500 ms`));
      await back;
      const after = await driver.sendText(contact, 'after the reconnect');
      await waitForReceived(chat.control, contact, after.id);
      expect((await chat.control.messages(contact)).map((message) => message.text)).toEqual(['before', 'after the reconnect']);
    } finally {
      await chat.close();
    }
  }, 60_000);
});
