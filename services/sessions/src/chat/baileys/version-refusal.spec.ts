import { startEmulator, type RunningEmulator } from '@switchboard/chat-emulator';
import type { WAVersion } from '@whiskeysockets/baileys';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatFixture, uniquePhone } from '../testing/chat-fixture.js';
import { nextEvent } from '../testing/driver-events.js';
import { pairWithPhone } from '../testing/pair.js';
import { BUNDLED_WA_WEB_VERSION } from './wa-web-version.js';

// The network retires a WhatsApp Web version (the emulator refuses older clients with
// `<failure reason="405"/>`); the driver looks the current version up again and retries once.
const [primary, secondary, revision] = BUNDLED_WA_WEB_VERSION;
const newer = (by: number): WAVersion => [primary, secondary, revision + by];

let emulator: RunningEmulator;
let chat: ChatFixture;
/** What the test's stand-in for web.whatsapp.com answers now, and how often it was asked. */
let latest: WAVersion | undefined;
let lookups = 0;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, controlPort: 0 });
  chat = await ChatFixture.create(emulator, {
    latestWaWebVersion: async () => {
      lookups += 1;
      return latest;
    },
  });
});
afterAll(async () => {
  await chat?.close();
  await emulator?.stop();
});

describe('a WhatsApp Web version the network no longer accepts', () => {
  it('is refused at the reconnect, looked up anew, and the retry with the current version connects', async () => {
    const phone = uniquePhone();
    const driver = chat.driver('ses_version_refresh');
    await pairWithPhone(driver, chat.control, phone);
    // No lookup answer at the start: the bundled version was announced.
    expect(lookups).toBe(1);

    await chat.control.setMinVersion(newer(1));
    latest = newer(1);
    const events: string[] = [];
    driver.on('disconnected', ({ reason }) => events.push(reason));
    const back = nextEvent(driver, 'connected');
    await chat.control.drop(phone);
    expect(await back).toEqual({ phone, reconnected: true });
    expect(lookups).toBe(2);
    // The refusal itself is not told: only the drop that started it.
    expect(events).toEqual(['connection_lost']);
    expect(await chat.control.device(phone)).toMatchObject({ online: true, connections: 1 });
  });

  it('ends the session as version_rejected when the version looked up is refused too', async () => {
    const phone = uniquePhone();
    const driver = chat.driver('ses_version_rejected');
    await pairWithPhone(driver, chat.control, phone);
    const before = lookups;

    await chat.control.setMinVersion(newer(5));
    const rejected = nextEvent(driver, 'disconnected', ({ reason }) => reason === 'version_rejected');
    await chat.control.drop(phone);
    expect(await rejected).toEqual({
      reason: 'version_rejected',
      willReconnect: false,
      failure: { cause: 'rejected', detail: expect.stringContaining(`refuses WhatsApp Web version ${newer(1).join('.')} as outdated (connection failure 405)`) },
    });
    expect(lookups).toBe(before + 1);
    expect(await chat.control.device(phone)).toMatchObject({ online: false, connections: 0 });
  });

  it('gives a new session no pairing code when the network refuses its version twice', async () => {
    const driver = chat.driver('ses_version_pairing');
    const codes: string[] = [];
    driver.on('qr', ({ code }) => codes.push(code));
    const rejected = nextEvent(driver, 'disconnected');
    await driver.start();
    expect(await rejected).toMatchObject({ reason: 'version_rejected', willReconnect: false, failure: { cause: 'rejected' } });
    expect(codes).toEqual([]);
    await chat.control.setMinVersion(null);
  });
});
