import QRCode from 'qrcode';
import type { WASocket } from '@whiskeysockets/baileys';
import type { EmulatorControlClient } from '../../src/index.js';
import { TestClient, closeCode, nextConnectionUpdate, waitForEvent } from './baileys-client.js';
import type { RunningEmulator } from '../../src/index.js';

export const firstQr = (sock: WASocket): Promise<string> => waitForEvent(sock.ev, 'connection.update', (u) => u.qr);

/** Links a fresh Baileys client as `phone` the way a user would: QR image -> phone scan -> 515 -> login. */
export const linkClient = async (
  emulator: RunningEmulator,
  control: EmulatorControlClient,
  phone: string,
  extra: ConstructorParameters<typeof TestClient>[1] = {},
): Promise<{ client: TestClient; sock: WASocket }> => {
  const client = new TestClient(emulator, extra);
  const registering = client.connect();
  const qr = await firstQr(registering);
  const closed = nextConnectionUpdate(registering, (u) => u.connection === 'close');
  await control.scan(await QRCode.toDataURL(qr), phone);
  const update = await closed;
  if (closeCode(update) !== 515) throw new Error(`expected restart required, got ${closeCode(update)}`);
  const sock = await client.open();
  return { client, sock };
};
