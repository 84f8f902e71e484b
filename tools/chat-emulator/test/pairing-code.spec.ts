import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DisconnectReason } from '@whiskeysockets/baileys';
import { EmulatorControlClient, startEmulator } from '../src/index.js';
import type { RunningEmulator } from '../src/index.js';
import { TestClient, closeCode, nextConnectionUpdate } from './support/baileys-client.js';
import { firstQr } from './support/pairing.js';

/** Baileys' pairing code, as WhatsApp shows it: `ABCD-EFGH`. */
const shown = (code: string): string => `${code.slice(0, 4)}-${code.slice(4)}`;

/** Another valid code: the first character changed within the code alphabet. */
const wrongCode = (code: string): string => `${code.startsWith('A') ? 'B' : 'A'}${code.slice(1)}`;

/** A fresh Baileys client that asks to link to `phone` by code, as `requestPairingCode` does once the registration is open. */
const requestCode = async (emulator: RunningEmulator, phone: string, extra: ConstructorParameters<typeof TestClient>[1] = {}) => {
  const client = new TestClient(emulator, extra);
  const sock = client.connect();
  await firstQr(sock);
  const code = await sock.requestPairingCode(phone);
  return { client, sock, code };
};

/** The registering socket closes with 515 (restart required) and the client logs in as `phone`. */
const expectLinkedAs = async (client: TestClient, restarting: ReturnType<typeof nextConnectionUpdate>, phone: string): Promise<void> => {
  expect(closeCode(await restarting)).toBe(DisconnectReason.restartRequired);
  expect((await client.open()).user?.id).toMatch(new RegExp(`^${phone}:\\d+@s\\.whatsapp\\.net$`));
  client.end();
};

describe('pairing a device by code (link with phone number)', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;

  beforeAll(async () => {
    emulator = await startEmulator();
    control = new EmulatorControlClient(emulator.controlUrl);
  });
  afterAll(() => emulator.stop());

  it('links the device when the phone of the named number enters the code it shows (hyphen and case as typed)', async () => {
    const phone = '15550003331';
    const { client, sock, code } = await requestCode(emulator, phone);
    expect(code).toMatch(/^[1-9A-HJ-NP-TV-Z]{8}$/);
    const restarted = nextConnectionUpdate(sock, (u) => u.connection === 'close');
    await expect(control.pair(phone, shown(code).toLowerCase())).resolves.toMatchObject({ phone, jid: expect.stringMatching(`^${phone}:`) });
    await expectLinkedAs(client, restarted, phone);
    expect((await control.device(phone)).deviceId).toBeGreaterThan(0);
  });

  it('refuses a wrong code (the companion key bundle does not open) and keeps the device waiting for the right one', async () => {
    const phone = '15550003332';
    const { client, sock, code } = await requestCode(emulator, phone);
    let closed = false;
    sock.ev.on('connection.update', (u) => void (u.connection === 'close' && (closed = true)));
    await expect(control.pair(phone, wrongCode(code))).rejects.toMatchObject({ status: 422, code: 'code_incorrect' });
    await expect(control.device(phone)).rejects.toMatchObject({ status: 404, code: 'device_not_linked' });
    expect(closed).toBe(false);
    const restarted = nextConnectionUpdate(sock, (u) => u.connection === 'close');
    await control.pair(phone, code);
    await expectLinkedAs(client, restarted, phone);
  });

  it('lets one code entry run at a time for a device: a second one at once is 409, the first links it', async () => {
    const phone = '15550003335';
    const { client, sock, code } = await requestCode(emulator, phone);
    const restarted = nextConnectionUpdate(sock, (u) => u.connection === 'close');
    const [first, second] = await Promise.allSettled([control.pair(phone, code), control.pair(phone, code)]);
    expect(first).toMatchObject({ status: 'fulfilled', value: { phone } });
    expect(second).toMatchObject({ status: 'rejected', reason: { status: 409, code: 'pairing_in_progress' } });
    await expectLinkedAs(client, restarted, phone);
  });

  it('ends the registration like an unscanned QR once its refs ran out: the code no longer links anything', async () => {
    const short = await startEmulator({ pairing: { firstRefMs: 300, nextRefMs: 300, refCount: 2 } });
    try {
      const shortControl = new EmulatorControlClient(short.controlUrl);
      const phone = '15550003333';
      const { sock, code } = await requestCode(short, phone, { qrTimeout: 300 });
      const closed = await nextConnectionUpdate(sock, (u) => u.connection === 'close', 10_000);
      expect(closeCode(closed)).toBe(DisconnectReason.timedOut);
      await expect(shortControl.pair(phone, code)).rejects.toMatchObject({ status: 404, code: 'no_code_request' });
    } finally {
      await short.stop();
    }
  });

  it('refuses codes that cannot be one, and numbers no device asked to link to', async () => {
    await expect(control.pair('15550003334', 'ABCD-EFGH')).rejects.toMatchObject({ status: 404, code: 'no_code_request' });
    await expect(control.pair('15550003334', 'ABC')).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
    await expect(control.pair('15550003334', 'ABCD-EFG0')).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
    await expect(control.pair('+1555', 'ABCD-EFGH')).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
  });
});
