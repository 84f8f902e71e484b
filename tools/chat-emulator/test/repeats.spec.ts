import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EmulatorControlClient, startEmulator } from '../src/index.js';
import { linkClient } from './support/pairing.js';
import { newMessageId, until } from './support/status.js';

const ME = '15550007777';
const CONTACT = '15551117777';
const to = `${CONTACT}@s.whatsapp.net`;

describe('a message id sent again', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'chat-emulator-repeats-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is shown once with its repeats counted, also after the network restarts', async () => {
    const first = await startEmulator({ dataDir });
    const control1 = new EmulatorControlClient(first.controlUrl);
    const { client, sock } = await linkClient(first, control1, ME);
    const id = newMessageId();
    // The same message twice (a sender unsure whether the first went out), then another message.
    await sock.sendMessage(to, { text: 'your code is 1234' }, { messageId: id });
    await sock.sendMessage(to, { text: 'your code is 1234' }, { messageId: id });
    await sock.sendMessage(to, { text: 'a different message' });
    const log = await until(async () => {
      const messages = await control1.messages(CONTACT);
      return messages.length === 2 && messages[0]?.repeats === 1 ? messages : undefined;
    });
    expect(log).toMatchObject([{ id, text: 'your code is 1234', repeats: 1 }, { text: 'a different message', repeats: 0 }]);
    expect((await control1.health()).messages).toMatchObject({ decrypted: 3, failed: 0 });
    client.end();
    await first.stop();

    const second = await startEmulator({ dataDir });
    try {
      const control2 = new EmulatorControlClient(second.controlUrl);
      expect((await control2.messages(CONTACT)).map((m) => [m.text, m.repeats])).toEqual([['your code is 1234', 1], ['a different message', 0]]);
      client.useNetwork(second);
      const sock2 = await client.open();
      await sock2.sendMessage(to, { text: 'your code is 1234' }, { messageId: id });
      const after = await until(async () => {
        const messages = await control2.messages(CONTACT);
        return messages[0]?.repeats === 2 ? messages : undefined;
      });
      expect(after.map((m) => [m.id === id, m.text, m.repeats])).toEqual([[true, 'your code is 1234', 2], [false, 'a different message', 0]]);
      client.end();
    } finally {
      await second.stop();
    }
  });
});
