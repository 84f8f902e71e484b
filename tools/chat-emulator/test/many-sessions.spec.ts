import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmulatorControlClient, startEmulator } from '../src/index.js';
import type { RunningEmulator } from '../src/index.js';
import type { TestClient } from './support/baileys-client.js';
import { linkClient } from './support/pairing.js';
import { Status, newMessageId, until, waitForStatus } from './support/status.js';

const SESSIONS = 20;
const CONTACT = '15551117777';

describe('many linked devices at once', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    emulator = await startEmulator();
    control = new EmulatorControlClient(emulator.controlUrl);
    await control.setContact(CONTACT, { onNetwork: true, deliverAfterMs: 50, readAfterMs: 100 });
  });
  afterAll(async () => {
    for (const client of clients) client.end();
    await emulator.stop();
  });

  it(`pairs ${SESSIONS} accounts concurrently; each sends as itself and gets its own receipts`, async () => {
    const phones = Array.from({ length: SESSIONS }, (_, i) => `1555100${String(i).padStart(4, '0')}`);
    const linked = await Promise.all(phones.map((phone) => linkClient(emulator, control, phone)));
    clients.push(...linked.map((l) => l.client));
    expect((await control.health()).online).toBe(SESSIONS);

    const ids = await Promise.all(
      linked.map(async ({ sock }, i) => {
        const id = newMessageId();
        const read = waitForStatus(sock, id, Status.READ, 20_000);
        await sock.sendMessage(`${CONTACT}@s.whatsapp.net`, { text: `from ${phones[i]}` }, { messageId: id });
        await read;
        return id;
      }),
    );
    const inbox = await until(async () => {
      const messages = await control.messages(CONTACT);
      return messages.length >= SESSIONS ? messages : undefined;
    });
    expect(new Set(inbox.map((m) => m.id))).toEqual(new Set(ids));
    for (const message of inbox) expect(message.text).toBe(`from ${message.from}`);
  }, 60_000);
});
