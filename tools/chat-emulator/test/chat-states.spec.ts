import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WASocket } from '@whiskeysockets/baileys';
import { EmulatorControlClient, startEmulator } from '../src/index.js';
import type { RunningEmulator } from '../src/index.js';
import type { TestClient } from './support/baileys-client.js';
import { linkClient } from './support/pairing.js';
import { until } from './support/status.js';

const ME = '15550003333';

describe('chat states a linked device shows a contact ("typing…")', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;
  let client: TestClient;
  let sock: WASocket;

  beforeAll(async () => {
    emulator = await startEmulator();
    control = new EmulatorControlClient(emulator.controlUrl);
    ({ client, sock } = await linkClient(emulator, control, ME));
  });
  afterAll(async () => {
    client.end();
    await emulator.stop();
  });

  it('records composing, recording and paused per contact, in order, by phone or LID address', async () => {
    await sock.sendPresenceUpdate('composing', '15551110101@s.whatsapp.net');
    await sock.sendPresenceUpdate('recording', '15551110101@s.whatsapp.net');
    await sock.sendPresenceUpdate('paused', '915551110101@lid');
    const states = await until(async () => {
      const seen = await control.chatStates('15551110101');
      return seen.length === 3 ? seen : undefined;
    });
    expect(states.map((s) => [s.from, s.state])).toEqual([[ME, 'composing'], [ME, 'recording'], [ME, 'paused']]);
    expect(Date.parse(states[2]!.at)).toBeGreaterThanOrEqual(Date.parse(states[0]!.at));
    expect(await control.chatStates('15551110102')).toEqual([]);
  });
});
