import { ApiError, QuotaSubjects } from '@switchboard/contracts';
import { InProcessBus } from '@switchboard/bus';
import { createLogger } from '@switchboard/telemetry';
import { afterEach, describe, expect, it } from 'vitest';
import { SessionSlots } from './quota-slots.js';

const ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const SESSION = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const logger = createLogger({ service: 'test', level: 'silent' });

describe('plan slots held by the quota service', () => {
  let bus: InProcessBus;
  afterEach(async () => bus.close());

  it('releases a reservation that timed out: quota may have counted it for a session never created', async () => {
    bus = new InProcessBus({ logger: { error() {}, warn() {}, info() {} } });
    const held = new Set<string>();
    await bus.subscribe(QuotaSubjects.reserveSession.subject, async (message) => {
      const { sessionId } = message.data as { sessionId: string };
      held.add(sessionId);
      // Counted, but answered after the caller stopped waiting.
      await new Promise((resolve) => setTimeout(resolve, 300));
      return { limit: 1, used: held.size };
    });
    await bus.subscribe(QuotaSubjects.releaseSession.subject, (message) => {
      held.delete((message.data as { sessionId: string }).sessionId);
      return { released: true, limit: 1, used: held.size };
    });
    const slots = new SessionSlots(bus, logger, 100);
    await expect(slots.reserve(ACCOUNT, SESSION)).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    await expect.poll(() => held.size, { timeout: 5_000 }).toBe(0);
  });

  it('keeps a refusal as it is, and releases nothing for it', async () => {
    bus = new InProcessBus({ logger: { error() {}, warn() {}, info() {} } });
    let releases = 0;
    await bus.subscribe(QuotaSubjects.reserveSession.subject, () => {
      throw new ApiError('SESSION_LIMIT_REACHED', undefined, { limit: 1, used: 1 });
    });
    await bus.subscribe(QuotaSubjects.releaseSession.subject, () => {
      releases += 1;
      return { released: false, limit: 1, used: 1 };
    });
    const slots = new SessionSlots(bus, logger, 100);
    await expect(slots.reserve(ACCOUNT, SESSION)).rejects.toMatchObject({ code: 'SESSION_LIMIT_REACHED' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(releases).toBe(0);
  });
});
