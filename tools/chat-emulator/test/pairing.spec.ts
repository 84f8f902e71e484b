import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DisconnectReason } from '@whiskeysockets/baileys';
import { EmulatorControlClient, startEmulator } from '../src/index.js';
import type { RunningEmulator } from '../src/index.js';
import { TestClient, closeCode, nextConnectionUpdate, waitForEvent } from './support/baileys-client.js';
import { linkClient } from './support/pairing.js';

const REF_MS = 1000;

describe('pairing a device by QR', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;

  beforeAll(async () => {
    emulator = await startEmulator({ pairing: { firstRefMs: REF_MS, nextRefMs: REF_MS, refCount: 3 } });
    control = new EmulatorControlClient(emulator.controlUrl);
  });
  afterAll(() => emulator.stop());

  it('links the scanned number from the QR image: pair-success, restart (515), then login as that number', async () => {
    const { client, sock } = await linkClient(emulator, control, '15550001111');
    expect(sock.user?.id).toMatch(/^15550001111:\d+@s\.whatsapp\.net$/);
    expect(client.creds.me?.lid).toMatch(/@lid$/);
    expect((await control.health()).online).toBe(1);
    client.end();
  });

  it('rotates the QR on the network schedule, then stops: the session times out', async () => {
    const client = new TestClient(emulator, { qrTimeout: REF_MS });
    const sock = client.connect();
    const qrs: string[] = [];
    sock.ev.on('connection.update', (u) => void (u.qr && qrs.push(u.qr)));
    const closed = await nextConnectionUpdate(sock, (u) => u.connection === 'close', 10_000);
    expect(closeCode(closed)).toBe(DisconnectReason.timedOut);
    expect(qrs).toHaveLength(3);
    expect(new Set(qrs.map((qr) => qr.split(',')[0])).size).toBe(3);
  });

  it('accepts only the QR currently shown: an expired one is refused, the current raw string links', async () => {
    const client = new TestClient(emulator, { qrTimeout: REF_MS });
    const sock = client.connect();
    const qrs: string[] = [];
    sock.ev.on('connection.update', (u) => void (u.qr && qrs.push(u.qr)));
    await waitForEvent(sock.ev, 'connection.update', () => qrs.length >= 3);
    await expect(control.scan(qrs[0] ?? '', '15550001112')).rejects.toMatchObject({ status: 410, code: 'qr_expired' });
    const restarted = nextConnectionUpdate(sock, (u) => u.connection === 'close');
    await expect(control.scan(qrs[2] ?? '', '15550001112')).resolves.toMatchObject({ phone: '15550001112' });
    expect(closeCode(await restarted)).toBe(DisconnectReason.restartRequired);
    expect((await client.open()).user?.id).toMatch(/^15550001112:/);
    client.end();
  });

  it('the network ends the registration itself once every ref expired, whatever the client timer', async () => {
    const short = await startEmulator({ pairing: { firstRefMs: 200, nextRefMs: 200, refCount: 2 } });
    try {
      const sock = new TestClient(short).connect(); // Baileys' own QR timer: 60 s
      const closed = await nextConnectionUpdate(sock, (u) => u.connection === 'close', 10_000);
      expect(closeCode(closed)).toBe(DisconnectReason.timedOut);
    } finally {
      await short.stop();
    }
  });

  it('refuses QR codes no client is showing', async () => {
    const fake = 'https://wa.me/settings/linked_devices#2@nothing,' + [32, 32, 32].map((n) => Buffer.alloc(n).toString('base64')).join(',');
    await expect(control.scan(fake, '15550001113')).rejects.toMatchObject({ status: 404, code: 'qr_unknown' });
    await expect(control.scan('data:image/png;base64,iVBORw0KGgo=', '15550001113')).rejects.toMatchObject({ status: 400, code: 'qr_unreadable' });
  });
});
