import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INITIAL_PREKEY_COUNT, MIN_PREKEY_COUNT } from '@whiskeysockets/baileys';
import { EmulatorControlClient, startEmulator } from '../src/index.js';
import type { RunningEmulator } from '../src/index.js';
import { TestClient, closeCode, nextConnectionUpdate, waitForEvent } from './support/baileys-client.js';
import { firstQr, linkClient } from './support/pairing.js';
import { until } from './support/status.js';

/** One-time pre-keys the network holds for the device of `phone`, once it holds `expected`. */
const preKeysReach = (control: EmulatorControlClient, phone: string, expected: number) =>
  until(async () => {
    const { oneTimePreKeys } = await control.device(phone);
    return oneTimePreKeys === expected ? oneTimePreKeys : undefined;
  });

describe('one-time pre-keys of a linked device', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;

  beforeAll(async () => {
    emulator = await startEmulator();
    control = new EmulatorControlClient(emulator.controlUrl);
  });
  afterAll(() => emulator.stop());

  it('a new device holds none: Baileys is told 0 at its first login and uploads its initial batch', async () => {
    const phone = '15550007001';
    const { client } = await linkClient(emulator, control, phone);
    expect(await preKeysReach(control, phone, INITIAL_PREKEY_COUNT)).toBe(INITIAL_PREKEY_COUNT);
    client.end();
  });

  it('each contact starting a session uses one up; running low, the device is told the count and uploads more', async () => {
    const phone = '15550007002';
    const uploaded = MIN_PREKEY_COUNT + 1;
    // A client whose first upload is small (Baileys counts the rest of its 812 as generated already).
    const client = new TestClient(emulator);
    client.creds.nextPreKeyId = client.creds.firstUnuploadedPreKeyId + INITIAL_PREKEY_COUNT - uploaded;
    const registering = client.connect();
    const qr = await firstQr(registering);
    const restart = nextConnectionUpdate(registering, (u) => u.connection === 'close');
    await control.scan(await QRCode.toDataURL(qr), phone);
    expect(closeCode(await restart)).toBe(515);
    const sock = await client.open();
    await preKeysReach(control, phone, uploaded);

    // Two first contacts leave 4 (< 5): the network tells the device, Baileys uploads 5 more.
    for (const [index, contact] of ['15551117001', '15551117002'].entries()) {
      const arrived = waitForEvent(sock.ev, 'messages.upsert', ({ messages }) => messages.find((m) => m.message?.conversation === `hi ${index}`));
      await control.inbound(contact, phone, `hi ${index}`);
      await arrived;
    }
    expect(await preKeysReach(control, phone, uploaded - 2 + MIN_PREKEY_COUNT)).toBe(9);
    client.end();
  });
});
