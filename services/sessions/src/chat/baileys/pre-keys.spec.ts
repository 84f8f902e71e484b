import { startEmulator, type RunningEmulator } from '@switchboard/chat-emulator';
import { MIN_PREKEY_COUNT } from '@whiskeysockets/baileys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_PRE_KEY_BATCH } from '../credentials/first-pre-key-batch.js';
import { nextEvent } from '../testing/driver-events.js';
import { ChatFixture, uniquePhone } from '../testing/chat-fixture.js';
import { pairWithPhone } from '../testing/pair.js';

let emulator: RunningEmulator;
let chat: ChatFixture;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, controlPort: 0 });
  chat = await ChatFixture.create(emulator);
});
afterAll(async () => {
  await chat?.close();
  await emulator?.stop();
});

/** One-time pre-keys the network holds for the device of `phone`, once it holds `expected` (10 s at most). */
async function preKeysOnNetwork(phone: string, expected: number): Promise<number> {
  const giveUpAt = Date.now() + 10_000;
  for (;;) {
    const { oneTimePreKeys } = await chat.control.device(phone);
    if (oneTimePreKeys === expected || Date.now() > giveUpAt) return oneTimePreKeys;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('one-time pre-keys of a paired session', () => {
  it('go up in a batch of 50 at the first login, and more when the network says few are left', async () => {
    const phone = uniquePhone();
    const driver = chat.driver('ses_pre_keys');
    await pairWithPhone(driver, chat.control, phone);
    expect(await preKeysOnNetwork(phone, FIRST_PRE_KEY_BATCH)).toBe(FIRST_PRE_KEY_BATCH);

    // Each first contact starts its Signal session with one of them, read back from the store.
    const contacts = Array.from({ length: FIRST_PRE_KEY_BATCH - MIN_PREKEY_COUNT + 1 }, () => uniquePhone('1444'));
    for (const contact of contacts) {
      const received = nextEvent(driver, 'inbound', (message) => message.from === contact);
      await chat.control.inbound(contact, phone, `hello from ${contact}`);
      expect(await received).toMatchObject({ content: { type: 'text', text: `hello from ${contact}` } });
    }
    // 4 left: the network told the device, which uploaded Baileys' 5 more.
    expect(await preKeysOnNetwork(phone, MIN_PREKEY_COUNT - 1 + MIN_PREKEY_COUNT)).toBe(MIN_PREKEY_COUNT - 1 + MIN_PREKEY_COUNT);
  }, 60_000);
});
