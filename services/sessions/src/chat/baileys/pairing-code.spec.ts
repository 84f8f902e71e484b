import { ChatNetworkGate, EmulatorControlError, startEmulator, type RunningEmulator } from '@switchboard/chat-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextEvent } from '../testing/driver-events.js';
import { ChatFixture, uniquePhone } from '../testing/chat-fixture.js';

// Each QR ref lives this long, REFS of them: a pairing lasts REF_MS * REFS.
const REF_MS = 5_000;
const REFS = 3;

let emulator: RunningEmulator;
let gate: ChatNetworkGate;
let chat: ChatFixture;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, controlPort: 0, pairing: { firstRefMs: REF_MS, nextRefMs: REF_MS, refCount: REFS } });
  gate = await ChatNetworkGate.start(emulator.wsUrl);
  chat = await ChatFixture.create({ ...emulator, wsUrl: gate.wsUrl }, { qrTimeoutMs: REF_MS });
});
afterAll(async () => {
  await chat?.close();
  await gate?.close();
  await emulator?.stop();
});

/** Enters the code on the phone, retrying while the network has not heard the device ask for it yet. */
async function enterCode(phone: string, code: string): Promise<void> {
  for (const deadline = Date.now() + 10_000; ; ) {
    try {
      return void (await chat.control.pair(phone, code));
    } catch (error) {
      if (!(error instanceof EmulatorControlError && error.code === 'no_code_request') || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

describe('pairing a driver by code', () => {
  it('tells the code once, after the first QR, valid until the last QR ref ends; the phone entering it links the number', async () => {
    const phone = uniquePhone();
    const driver = chat.driver('ses_code');
    const firstQr = nextEvent(driver, 'qr');
    const pairingCode = nextEvent(driver, 'pairingCode');
    const connected = nextEvent(driver, 'connected');
    const startedAt = Date.now();
    await driver.start({ pairByCode: phone });
    await firstQr;
    const { code, expiresAt } = await pairingCode;
    expect(code).toMatch(/^[1-9A-HJ-NP-TV-Z]{4}-[1-9A-HJ-NP-TV-Z]{4}$/);
    expect(expiresAt.getTime()).toBeGreaterThanOrEqual(startedAt + REF_MS * REFS);
    expect(expiresAt.getTime()).toBeLessThan(Date.now() + REF_MS * REFS + 1_000);
    await chat.control.pair(phone, code);
    expect((await connected).phone).toBe(phone);
  });

  it('keeps the code working across a connection lost while pairing: the next socket registers again and asks for the same code', async () => {
    const phone = uniquePhone();
    const driver = chat.driver('ses_code_blip');
    let codesTold = 0;
    driver.on('pairingCode', () => (codesTold += 1));
    const pairingCode = nextEvent(driver, 'pairingCode');
    await driver.start({ pairByCode: phone });
    const { code } = await pairingCode;
    const lost = nextEvent(driver, 'disconnected');
    const qrAgain = nextEvent(driver, 'qr');
    gate.cut();
    expect(await lost).toMatchObject({ reason: 'connection_lost', willReconnect: true });
    await qrAgain;
    const connected = nextEvent(driver, 'connected');
    await enterCode(phone, code);
    expect((await connected).phone).toBe(phone);
    expect(codesTold).toBe(1);
  });
});
