import { closedLoopbackPort } from '@switchboard/bus/testing';
import { SessionsSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from './harness.js';

// The chat network is unreachable (a loopback port nobody listens on): no QR code ever comes.
let h: Harness;
beforeAll(async () => {
  const port = await closedLoopbackPort();
  h = await Harness.start({
    firstQrTimeoutMs: 3_000,
    chatNetwork: (emulator) => ({
      network: { kind: 'emulator', url: `ws://127.0.0.1:${port}/ws/chat`, rootPublicKey: emulator.rootPublicKey, mediaCertificatePem: emulator.mediaCertificatePem },
    }),
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('creating a session while the chat network is unreachable', () => {
  it('answers CHAT_NETWORK_ERROR, records the session as error, and gives the slot back', async () => {
    const accountId = await h.quota.account('free');
    await expect(h.call(SessionsSubjects.create, { accountId })).rejects.toMatchObject({ code: 'CHAT_NETWORK_ERROR' });
    const listed = await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 });
    expect(listed.sessions.map((s) => s.status)).toEqual(['error']);
    expect(await h.quota.activeSessions(accountId)).toBe(0);
  });
});
