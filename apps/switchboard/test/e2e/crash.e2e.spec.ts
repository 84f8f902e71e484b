import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crashMidBurst } from '../support/crash-burst.js';
import type { CrashVictim } from '../support/crash-burst.js';
import { startDistributed } from '../support/harness.js';
import type { SwitchboardUnderTest } from '../support/harness.js';
import { ApiClient, eventually } from '../support/http.js';

// Issue 10, item 1: the distributed mode (four processes over a private NATS, the emulator in its
// own process) takes a burst of texts, 24 in flight, and one part dies mid-burst. Whatever the
// clients were told was accepted (201/202) reaches its contact, shown once; the network carries a
// message a second time only if its first send was in doubt when the sender died. The same burst
// with 1,000 texts, and its timings, is `npm run bench:crash -w @switchboard/app`.

const MESSAGES = 200;
const IN_FLIGHT = 24;
const CONTACTS = 8;
const KILL_AFTER_ACKS = 50;

let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;

describe('a burst of texts in the distributed mode when one part dies mid-burst', () => {
  let sut: SwitchboardUnderTest;
  let sessionId: string;

  beforeAll(async () => {
    sut = await startDistributed();
    const api = new ApiClient(sut.url, sut.apiKey);
    const created = await api.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, newPhone('1445'));
    sessionId = created.body.data.sessionId;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  }, 180_000);
  afterAll(async () => {
    await sut?.close();
  });

  it.each<CrashVictim>(['sessions', 'messaging', 'nats', 'messaging+sessions'])(
    '%s dies mid-burst (SIGKILL; NATS is stopped): every acknowledged text shown exactly once, resent only if in doubt',
    async (victim) => {
      const contacts = Array.from({ length: CONTACTS }, () => newPhone('1667'));
      const figures = await crashMidBurst(sut, sessionId, { victim, messages: MESSAGES, inFlight: IN_FLIGHT, contacts, killAfterAcks: KILL_AFTER_ACKS });
      console.info(`crash of ${victim}: ${JSON.stringify(figures)}`);
      // The kill landed mid-burst, with requests under way.
      expect(figures.acknowledged).toBeGreaterThanOrEqual(KILL_AFTER_ACKS);
      expect(figures.inFlightAtKill).toBeGreaterThan(0);
      expect(figures).toMatchObject({ shownTwice: 0, lost: 0, shownOnce: figures.acknowledged });
      expect(figures.repeats).toBeLessThanOrEqual(figures.repeatBound);
      // Sessions did send for a dead messaging before it died too: otherwise "no repeat" proves nothing.
      if (victim === 'messaging+sessions') expect(figures.sentWithoutRequester).toBeGreaterThan(0);
    },
    300_000,
  );
});
