import { Curve } from '@whiskeysockets/baileys';
import { startEmulator, type RunningEmulator } from '@switchboard/chat-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nextEvent } from '../testing/driver-events.js';
import { ChatFixture } from '../testing/chat-fixture.js';

let emulator: RunningEmulator;
const fixtures: ChatFixture[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, controlPort: 0 });
});
afterAll(async () => {
  for (const fixture of fixtures) await fixture.close();
  await emulator?.stop();
});

/** A process trusting `rootPublicKey` for the Noise certificate chain (trust is process-wide in Baileys). */
async function trusting(rootPublicKey: Buffer): Promise<ChatFixture> {
  const fixture = await ChatFixture.create({ ...emulator, rootPublicKey }, { reconnect: { initialDelayMs: 5_000, maxDelayMs: 5_000 } });
  fixtures.push(fixture);
  return fixture;
}

describe("the server's certificate chain", () => {
  it('is refused when it does not lead to the trusted root, and accepted when it does', async () => {
    const stranger = await trusting(Buffer.from(Curve.generateKeyPair().public));
    const refused = stranger.driver('ses_stranger_root');
    let shownQr = false;
    refused.on('qr', () => (shownQr = true));
    const disconnected = nextEvent(refused, 'disconnected');
    await refused.start();
    const { reason, failure } = await disconnected;
    expect(reason).toBe('connection_lost');
    expect(failure?.detail).toMatch(/intermediate certificate signature invalid/);
    expect(shownQr).toBe(false);
    await refused.stop();

    const genuine = (await trusting(emulator.rootPublicKey)).driver('ses_genuine_root');
    const qr = nextEvent(genuine, 'qr');
    await genuine.start();
    expect((await qr).code).toContain(',');
  });
});
