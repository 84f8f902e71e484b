import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BinaryNode, WASocket } from '@whiskeysockets/baileys';
import { EmulatorControlClient, EmulatorControlError, startEmulator } from '../src/index.js';
import type { RunningEmulator, WaVersion } from '../src/index.js';
import { TestClient, closeCode, nextConnectionUpdate, waitForEvent } from './support/baileys-client.js';
import { firstQr, linkClient } from './support/pairing.js';
import { newMessageId, until } from './support/status.js';

const jid = (phone: string): string => `${phone}@s.whatsapp.net`;
const OLD: WaVersion = [2, 3000, 1000];
const CURRENT: WaVersion = [2, 3000, 2000];

/** Resolves with the network's `<ack class="message">` of message `id`, or 'none' after `ms`. */
const ackWithin = (sock: WASocket, id: string, ms: number): Promise<'acked' | 'none'> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => {
      sock.ws.off('CB:ack,class:message', listener);
      resolve('none');
    }, ms);
    const listener = (node: BinaryNode): void => {
      if (node.attrs.id !== id) return;
      clearTimeout(timer);
      sock.ws.off('CB:ack,class:message', listener);
      resolve('acked');
    };
    sock.ws.on('CB:ack,class:message', listener);
  });

/** Whether message `id` reaches the client within `ms`. */
const inboundWithin = (sock: WASocket, id: string, ms: number): Promise<boolean> =>
  waitForEvent(sock.ev, 'messages.upsert', ({ messages }) => messages.some((m) => m.key.id === id), ms).then(
    () => true,
    () => false,
  );

describe('a minimum WhatsApp Web version', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;

  beforeAll(async () => {
    emulator = await startEmulator({ minVersion: CURRENT });
    control = new EmulatorControlClient(emulator.controlUrl);
  });
  afterAll(() => emulator.stop());

  it('refuses an older client with 405 at registration, and serves a current one', async () => {
    const outdated = new TestClient(emulator, { version: OLD }).connect();
    const refused = await nextConnectionUpdate(outdated, (u) => u.connection === 'close');
    expect(closeCode(refused)).toBe(405);
    expect(refused.lastDisconnect?.error?.message).toBe('Connection Failure');

    const current = new TestClient(emulator, { version: CURRENT }).connect();
    expect(await firstQr(current)).toContain('2@');
    current.end(undefined);
  });

  it('refuses a linked client once its version is retired (POST /network/min-version), until it announces a newer one', async () => {
    const phone = '15550007001';
    await control.setMinVersion(null);
    expect((await control.health()).minVersion).toBeNull();
    // Read at every connect: the client announces whatever this says then.
    const settings: { version: WaVersion } = { version: OLD };
    const { client, sock } = await linkClient(emulator, control, phone, settings);
    const closed = nextConnectionUpdate(sock, (u) => u.connection === 'close');
    expect(await control.setMinVersion(CURRENT)).toEqual({ minVersion: CURRENT });
    await control.drop(phone);
    await closed;

    const again = client.connect();
    expect(closeCode(await nextConnectionUpdate(again, (u) => u.connection === 'close'))).toBe(405);

    settings.version = CURRENT;
    await client.open();
    expect(await control.device(phone)).toMatchObject({ online: true, connections: 1 });
    expect((await control.health()).minVersion).toEqual(CURRENT);
    client.end();
  });

  it('answers 400 to a version that is not three non-negative integers', async () => {
    for (const version of [[2, 3000], '2.3000.1', [2, -1, 3], [2, 3000, 1.5]]) {
      const refused = await fetch(`${emulator.controlUrl}/network/min-version`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ version }),
      });
      expect(refused.status, JSON.stringify(version)).toBe(400);
    }
  });
});

describe('a black-holed device', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;

  beforeAll(async () => {
    emulator = await startEmulator();
    control = new EmulatorControlClient(emulator.controlUrl);
  });
  afterAll(() => emulator.stop());

  it('keeps the socket open but answers nothing and delivers nothing; ending it delivers both, late', async () => {
    const phone = '15550007101';
    const contact = '15551117101';
    const { client, sock } = await linkClient(emulator, control, phone);
    await control.setContact(contact, { onNetwork: true, deliverAfterMs: null, readAfterMs: null });
    // Known before the black hole: a first send would wait for the contact's devices (an iq) instead.
    await sock.sendMessage(jid(contact), { text: 'hello' });
    await until(async () => ((await control.messages(contact)).length === 1 ? true : undefined));
    expect(await control.blackhole(phone)).toEqual({ blackholed: true });
    expect(await control.device(phone)).toMatchObject({ online: false, connections: 1, blackholed: true });

    const id = newMessageId();
    const acked = ackWithin(sock, id, 10_000);
    await sock.sendMessage(jid(contact), { text: 'into the void' }, { messageId: id });
    const { id: inboundId } = await control.inbound(contact, phone, 'held for you');
    expect(await Promise.race([acked, new Promise((resolve) => setTimeout(() => resolve('none'), 1_000))])).toBe('none');
    expect(await inboundWithin(sock, inboundId, 1_000)).toBe(false);
    expect(await control.messages(contact)).toHaveLength(1);
    expect(sock.ws.isOpen).toBe(true);

    const inbound = inboundWithin(sock, inboundId, 10_000);
    expect(await control.endBlackhole(phone)).toEqual({ blackholed: false });
    expect(await acked).toBe('acked');
    expect(await inbound).toBe(true);
    expect(await until(async () => (await control.messages(contact)).find((m) => m.id === id))).toMatchObject({ text: 'into the void' });
    expect(await control.device(phone)).toMatchObject({ online: true, connections: 1, blackholed: false });
    client.end();
  });

  it('serves the device\'s next login and drops the silent connection first: never two at once', async () => {
    const phone = '15550007102';
    const { client, sock } = await linkClient(emulator, control, phone);
    await control.blackhole(phone);
    const dropped = nextConnectionUpdate(sock, (u) => u.connection === 'close');
    await client.open();
    expect(closeCode(await dropped)).toBe(428);
    expect(await control.device(phone)).toMatchObject({ online: true, connections: 1, maxConcurrentConnections: 1, blackholed: false });
    client.end();
  });

  it('answers 409 for a device with no connection and 404 for an unknown one', async () => {
    const phone = '15550007103';
    const { client } = await linkClient(emulator, control, phone);
    client.end();
    await until(async () => ((await control.device(phone)).connections === 0 ? true : undefined));
    await expect(control.blackhole(phone)).rejects.toMatchObject({ status: 409, code: 'device_offline' });
    await expect(control.blackhole('15550007199')).rejects.toBeInstanceOf(EmulatorControlError);
    expect(await control.endBlackhole(phone)).toEqual({ blackholed: false });
  });
});
