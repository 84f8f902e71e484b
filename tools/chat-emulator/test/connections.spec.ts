import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DisconnectReason } from '@whiskeysockets/baileys';
import { EmulatorControlClient, startEmulator } from '../src/index.js';
import type { RunningEmulator } from '../src/index.js';
import { closeCode, nextConnectionUpdate } from './support/baileys-client.js';
import { linkClient } from './support/pairing.js';
import { until } from './support/status.js';

/** What a test of several sessions replicas asserts: a device's connections never overlap. */
describe('logged-in connections of a linked device, now and at most at once', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;
  const counts = async (phone: string) => {
    const { online, connections, maxConcurrentConnections } = await control.device(phone);
    return { online, connections, maxConcurrentConnections };
  };
  /** The client closing its socket reaches the network a moment later. */
  const closedByClient = (phone: string) =>
    until(async () => {
      const now = await counts(phone);
      return now.connections === 0 ? now : undefined;
    });

  beforeAll(async () => {
    emulator = await startEmulator();
    control = new EmulatorControlClient(emulator.controlUrl);
  });
  afterAll(() => emulator.stop());

  it('one connection at a time: a drop ends it, the reconnect is one again, the client closing ends it', async () => {
    const phone = '15550006001';
    const { client, sock } = await linkClient(emulator, control, phone);
    expect(await control.device(phone)).toMatchObject({ phone, deviceId: expect.any(Number), linkedAt: expect.any(String) });
    expect(await counts(phone)).toEqual({ online: true, connections: 1, maxConcurrentConnections: 1 });

    const closed = nextConnectionUpdate(sock, (u) => u.connection === 'close');
    await control.drop(phone);
    expect(await counts(phone)).toEqual({ online: false, connections: 0, maxConcurrentConnections: 1 });
    await closed;

    await client.open();
    expect(await counts(phone)).toEqual({ online: true, connections: 1, maxConcurrentConnections: 1 });

    client.end();
    expect(await closedByClient(phone)).toEqual({ online: false, connections: 0, maxConcurrentConnections: 1 });
  });

  it('a second login of the same device overlaps the first until the network replaces it: at most 2', async () => {
    const phone = '15550006002';
    const { client, sock } = await linkClient(emulator, control, phone);
    const replaced = nextConnectionUpdate(sock, (u) => u.connection === 'close');
    await client.open();
    expect(closeCode(await replaced)).toBe(DisconnectReason.connectionReplaced);
    expect(await counts(phone)).toEqual({ online: true, connections: 1, maxConcurrentConnections: 2 });
    client.end();
    expect(await closedByClient(phone)).toEqual({ online: false, connections: 0, maxConcurrentConnections: 2 });
  });

  it('a device linked anew to the number counts from its link', async () => {
    const phone = '15550006003';
    const first = await linkClient(emulator, control, phone);
    await first.client.open();
    expect((await control.device(phone)).maxConcurrentConnections).toBe(2);
    const second = await linkClient(emulator, control, phone);
    expect(await counts(phone)).toEqual({ online: true, connections: 1, maxConcurrentConnections: 1 });
    second.client.end();
  });
});
