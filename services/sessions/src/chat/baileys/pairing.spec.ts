import { startEmulator, type RunningEmulator } from '@switchboard/chat-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextEvent } from '../testing/driver-events.js';
import { ChatFixture, uniquePhone } from '../testing/chat-fixture.js';
import { pairWithPhone } from '../testing/pair.js';

// Short pairing codes so running out of them takes about two seconds, not 160.
const QR_LIFETIME_MS = 700;
const QR_REFS = 3;

let emulator: RunningEmulator;
let chat: ChatFixture;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, controlPort: 0, pairing: { firstRefMs: QR_LIFETIME_MS, nextRefMs: QR_LIFETIME_MS, refCount: QR_REFS } });
  chat = await ChatFixture.create(emulator, { qrTimeoutMs: QR_LIFETIME_MS });
});
afterAll(async () => {
  await chat?.close();
  await emulator?.stop();
});

describe('pairing a session with a phone', () => {
  it('connects as the number of the phone that scanned the QR image', async () => {
    const phone = uniquePhone();
    const { phone: connectedAs } = await pairWithPhone(chat.driver('ses_pair'), chat.control, phone);
    expect(connectedAs).toBe(phone);
  });

  it('reconnects a new driver from the stored credentials without a scan', async () => {
    const phone = uniquePhone();
    const first = chat.driver('ses_resume');
    await pairWithPhone(first, chat.control, phone);
    await first.stop();

    const second = chat.driver('ses_resume');
    let scanned = false;
    second.on('qr', () => (scanned = true));
    const connected = nextEvent(second, 'connected');
    await second.start();
    expect((await connected).phone).toBe(phone);
    expect(scanned).toBe(false);
  });

  it('rotates the QR code, then reports pairing_timeout when nobody scans', async () => {
    const driver = chat.driver('ses_unscanned');
    const codes: { code: string; expiresAt: Date }[] = [];
    driver.on('qr', (qr) => codes.push(qr));
    const disconnected = nextEvent(driver, 'disconnected');
    const startedAt = Date.now();
    await driver.start();
    expect(await disconnected).toEqual({ reason: 'pairing_timeout', willReconnect: false });
    expect(codes).toHaveLength(QR_REFS);
    expect(new Set(codes.map((qr) => qr.code)).size).toBe(QR_REFS);
    expect(codes[0]!.expiresAt.getTime()).toBeGreaterThanOrEqual(startedAt + QR_LIFETIME_MS);
    expect(await chat.store.rowCount('ses_unscanned')).toBe(0);
  });
});
