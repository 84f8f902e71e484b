import { startEmulator, type RunningEmulator } from '@switchboard/chat-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotConnectedError } from '../errors.js';
import { nextEvent } from '../testing/driver-events.js';
import { ChatFixture, uniquePhone } from '../testing/chat-fixture.js';
import { pairWithPhone } from '../testing/pair.js';
import { waitForReceived } from '../testing/emulator-control.js';

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

describe('keeping a session connected', () => {
  it('reconnects by itself after the network drops the connection', async () => {
    const phone = uniquePhone();
    const driver = chat.driver('ses_dropped');
    await pairWithPhone(driver, chat.control, phone);
    const lost = nextEvent(driver, 'disconnected');
    const back = nextEvent(driver, 'connected');
    await chat.control.drop(phone);
    expect(await lost).toEqual({ reason: 'connection_lost', willReconnect: true });
    expect((await back).phone).toBe(phone);
    const contact = uniquePhone('1444');
    await chat.control.setContact(contact, { onNetwork: true, deliverAfterMs: 20, readAfterMs: 40 });
    expect((await driver.sendText(contact, 'still here')).id).toBeTruthy();
  });

  it('reports logged_out and wipes the credentials when the phone unlinks the device', async () => {
    const phone = uniquePhone();
    const driver = chat.driver('ses_unlinked');
    await pairWithPhone(driver, chat.control, phone);
    expect(await chat.store.rowCount('ses_unlinked')).toBeGreaterThan(0);
    const disconnected = nextEvent(driver, 'disconnected');
    await chat.control.logout(phone);
    expect(await disconnected).toEqual({ reason: 'logged_out', willReconnect: false });
    expect(await chat.store.rowCount('ses_unlinked')).toBe(0);
  });

  it('unlinks from our side with logout(), wiping the credentials', async () => {
    const driver = chat.driver('ses_logout');
    await pairWithPhone(driver, chat.control, uniquePhone());
    const disconnected = nextEvent(driver, 'disconnected');
    await driver.logout();
    expect(await disconnected).toEqual({ reason: 'logged_out', willReconnect: false });
    expect(await chat.store.rowCount('ses_logout')).toBe(0);
  });

  it('says so when logout() could not tell the network (the connection was being restored), wiping the credentials all the same', async () => {
    const phone = uniquePhone();
    const driver = chat.driver('ses_logout_while_lost');
    await pairWithPhone(driver, chat.control, phone);
    const lost = nextEvent(driver, 'disconnected');
    await chat.control.drop(phone);
    expect(await lost).toMatchObject({ reason: 'connection_lost', willReconnect: true });
    const loggedOut = nextEvent(driver, 'disconnected');
    await expect(driver.logout()).rejects.toBeInstanceOf(NotConnectedError);
    expect(await loggedOut).toEqual({ reason: 'logged_out', willReconnect: false });
    expect(await chat.store.rowCount('ses_logout_while_lost')).toBe(0);
  });

  it('holds 20 sessions at once in one process, each sending as its own number', async () => {
    const phones = Array.from({ length: 20 }, () => uniquePhone('1666'));
    const drivers = phones.map((_, index) => chat.driver(`ses_many_${index}`));
    const connected = await Promise.all(drivers.map((driver, index) => pairWithPhone(driver, chat.control, phones[index]!, 60_000)));
    expect(connected.map((event) => event.phone)).toEqual(phones);
    // One customer per session: the emulator keeps only 16 outstanding one-time pre-keys per
    // contact, so 20 first contacts with one person at once lose the oldest 4 (reported to its author).
    const contacts = phones.map(() => uniquePhone('1444'));
    for (const contact of contacts) await chat.control.setContact(contact, { onNetwork: true, deliverAfterMs: 20, readAfterMs: 40 });
    const sent = await Promise.all(drivers.map((driver, index) => driver.sendText(contacts[index]!, `from session ${index}`)));
    for (const [index, message] of sent.entries()) {
      const received = await waitForReceived(chat.control, contacts[index]!, message.id);
      expect(received).toMatchObject({ from: phones[index], text: `from session ${index}` });
    }
  }, 90_000);
});
