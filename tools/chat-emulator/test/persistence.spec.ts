import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EmulatorControlClient, startEmulator } from '../src/index.js';
import { linkClient } from './support/pairing.js';
import { Status, newMessageId, until, waitForStatus } from './support/status.js';

const ME = '15550006666';
const CONTACT = '15551116666';

describe('a network that keeps its state in a data directory', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'chat-emulator-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps linked devices, contacts and what they received across its own restart', async () => {
    const first = await startEmulator({ dataDir });
    const control1 = new EmulatorControlClient(first.controlUrl);
    const { client, sock } = await linkClient(first, control1, ME);
    await control1.setContact(CONTACT, { onNetwork: true, deliverAfterMs: 50, readAfterMs: null });
    const before = await sock.sendMessage(`${CONTACT}@s.whatsapp.net`, { text: 'before restart' });
    await until(async () => (await control1.messages(CONTACT)).find((m) => m.id === before?.key.id));
    client.end();
    await first.stop();

    const second = await startEmulator({ dataDir });
    try {
      expect(second.rootPublicKey.equals(first.rootPublicKey)).toBe(true);
      const control2 = new EmulatorControlClient(second.controlUrl);
      expect((await control2.messages(CONTACT)).map((m) => m.text)).toEqual(['before restart']);
      client.useNetwork(second);
      const sock2 = await client.open();
      expect(sock2.user?.id).toMatch(new RegExp(`^${ME}:`));
      const id = newMessageId();
      const delivered = waitForStatus(sock2, id, Status.DELIVERY_ACK);
      await sock2.sendMessage(`${CONTACT}@s.whatsapp.net`, { text: 'after restart' }, { messageId: id });
      expect(await until(async () => (await control2.messages(CONTACT)).find((m) => m.id === id))).toMatchObject({ text: 'after restart' });
      await delivered;
      client.end();
    } finally {
      await second.stop();
    }
  });
});
