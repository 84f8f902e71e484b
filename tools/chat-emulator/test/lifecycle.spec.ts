import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DisconnectReason } from '@whiskeysockets/baileys';
import { EmulatorControlClient, EmulatorControlError, startEmulator } from '../src/index.js';
import type { RunningEmulator } from '../src/index.js';
import { closeCode, nextConnectionUpdate, waitForEvent } from './support/baileys-client.js';
import { linkClient } from './support/pairing.js';
import { until } from './support/status.js';

describe('the phone and the network acting on a linked device', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;

  beforeAll(async () => {
    emulator = await startEmulator();
    control = new EmulatorControlClient(emulator.controlUrl);
  });
  afterAll(() => emulator.stop());

  it('drop cuts the connection with a non-logout reason, and the device can reconnect', async () => {
    const { client, sock } = await linkClient(emulator, control, '15550003333');
    const closed = nextConnectionUpdate(sock, (u) => u.connection === 'close');
    await control.drop('15550003333');
    const code = closeCode(await closed);
    expect(code).not.toBe(DisconnectReason.loggedOut);
    expect(code).toBe(DisconnectReason.connectionClosed);
    expect(await control.device('15550003333')).toMatchObject({ online: false });
    const { id } = await control.inbound('15551113333', '15550003333', 'while you were away');
    const again = client.connect();
    const held = waitForEvent(again.ev, 'messages.upsert', ({ messages }) => messages.find((m) => m.key.id === id));
    expect((await held).message?.conversation).toBe('while you were away');
    expect(again.user?.id).toMatch(/^15550003333:/);
    expect(await control.device('15550003333')).toMatchObject({ online: true });
    client.end();
  });

  it('logout unlinks the device: Baileys reports loggedOut and its credentials are refused afterwards', async () => {
    const { client, sock } = await linkClient(emulator, control, '15550004444');
    const closed = nextConnectionUpdate(sock, (u) => u.connection === 'close');
    await control.logout('15550004444');
    expect(closeCode(await closed)).toBe(DisconnectReason.loggedOut);
    const retry = client.connect();
    const refused = await nextConnectionUpdate(retry, (u) => u.connection === 'close');
    expect(closeCode(refused)).toBe(DisconnectReason.loggedOut);
  });

  it('a second connection with the same credentials replaces the first', async () => {
    const { client, sock } = await linkClient(emulator, control, '15550005555');
    const closed = nextConnectionUpdate(sock, (u) => u.connection === 'close');
    await client.open();
    expect(closeCode(await closed)).toBe(DisconnectReason.connectionReplaced);
    client.end();
  });

  it('drop and logout of a number without a linked device answer 404', async () => {
    await expect(control.drop('15550009999')).rejects.toMatchObject({ status: 404, code: 'device_not_linked' });
    await expect(control.logout('15550009999')).rejects.toBeInstanceOf(EmulatorControlError);
  });

  it('a client logging itself out unlinks its device', async () => {
    const { sock } = await linkClient(emulator, control, '15550007777');
    await sock.logout();
    await until(async () => control.device('15550007777').then(() => undefined, (e: unknown) => e));
    await expect(control.device('15550007777')).rejects.toMatchObject({ status: 404 });
  });
});
