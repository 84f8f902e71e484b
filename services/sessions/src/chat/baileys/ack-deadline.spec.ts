import { startEmulator, type RunningEmulator } from '@switchboard/chat-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatDriver } from '../driver.js';
import { ChatNetworkError } from '../errors.js';
import { ChatFixture, uniquePhone } from '../testing/chat-fixture.js';
import { pairWithPhone } from '../testing/pair.js';

// A large media upload can outlast the ack deadline (SWITCHBOARD_SEND_DEADLINE_MS): the deadline
// is 1 ms here, so it always passes while the bytes are still being encrypted and uploaded.
let emulator: RunningEmulator;
let chat: ChatFixture;
let driver: ChatDriver;
const unhandled: unknown[] = [];
const record = (reason: unknown) => void unhandled.push(reason);

beforeAll(async () => {
  process.on('unhandledRejection', record);
  emulator = await startEmulator({ port: 0, controlPort: 0 });
  chat = await ChatFixture.create(emulator, { ackTimeoutMs: 1 });
  driver = chat.driver('ses_ack_deadline');
  await pairWithPhone(driver, chat.control, uniquePhone());
});
afterAll(async () => {
  process.off('unhandledRejection', record);
  await chat?.close();
  await emulator?.stop();
});

describe('a send whose ack deadline passes during the upload', () => {
  it('fails that send alone, sends nothing after it failed, and the process keeps running', async () => {
    const contact = uniquePhone('1444');
    await chat.control.setContact(contact, { onNetwork: true, deliverAfterMs: 20, readAfterMs: null });
    // Known beforehand: the deadline counts the recipient lookup too, and would pass before the upload began.
    await driver.lookupContact(contact);
    const bytes = Buffer.alloc(2 * 2 ** 20, 7);
    await expect(driver.sendMedia(contact, { kind: 'document', bytes, mimetype: 'application/pdf', filename: 'big.pdf' })).rejects.toBeInstanceOf(ChatNetworkError);
    // The upload ends after the caller was told the send failed: the message must not go out then
    // (a client would send it again, and the contact would have it twice).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(unhandled).toEqual([]);
    expect(await chat.control.messages(contact)).toEqual([]);
  });
});
