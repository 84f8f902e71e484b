import { describe, expect, it } from 'vitest';
import { earliestSendAt, pacingByPlan, perPlan, released, settled, typingMs, waitsForPrevious } from './pacing-rules.js';
import type { PacingSettings, PacingState } from './pacing-rules.js';

const paced: PacingSettings = { gapMs: 1_000, newContactGapMs: 5_000 };
const off: PacingSettings = { gapMs: 0, newContactGapMs: 0 };
const least = () => 0;
const most = () => 0.999_999;
const known = (to: string) => ({ to, isNewContact: false });
const fresh = (to: string) => ({ to, isNewContact: true });

describe('when the next message of a session may go out', () => {
  it('goes at once when nothing was sent before', () => {
    expect(earliestSendAt({}, fresh('a'), paced, most)).toBeLessThanOrEqual(0);
  });

  it('waits the gap, stretched by up to half of it, after a message to a different recipient', () => {
    const state: PacingState = { lastTo: 'a', lastAt: 10_000 };
    expect(earliestSendAt(state, known('b'), paced, least)).toBe(11_000);
    expect(earliestSendAt(state, known('b'), paced, most)).toBe(11_499);
    expect(earliestSendAt(state, known('b'), paced, () => 0.5)).toBe(11_250);
  });

  it('never waits less than the gap, whatever the random source gives', () => {
    const state: PacingState = { lastTo: 'a', lastAt: 10_000 };
    for (const draw of [-1, 0, 0.3, 1, 7]) {
      const at = earliestSendAt(state, known('b'), paced, () => draw);
      expect(at).toBeGreaterThanOrEqual(11_000);
      expect(at).toBeLessThanOrEqual(11_500);
    }
  });

  it('does not space messages to the recipient of the one before', () => {
    expect(earliestSendAt({ lastTo: 'a', lastAt: 10_000 }, known('a'), paced, most)).toBeLessThanOrEqual(0);
  });

  it('spaces first messages to new contacts by the slower new-contact gap', () => {
    const state: PacingState = { lastTo: 'a', lastAt: 12_000, lastNewContactAt: 10_000 };
    expect(earliestSendAt(state, fresh('b'), paced, least)).toBe(15_000);
    // A known contact only waits the ordinary gap.
    expect(earliestSendAt(state, known('b'), paced, least)).toBe(13_000);
  });

  it('applies no rule set to 0, and nothing at all when pacing is off', () => {
    const state: PacingState = { lastTo: 'a', lastAt: 10_000, lastNewContactAt: 10_000 };
    expect(earliestSendAt(state, fresh('b'), off, most)).toBeLessThanOrEqual(0);
    expect(earliestSendAt(state, fresh('b'), { gapMs: 0, newContactGapMs: 5_000 }, least)).toBe(15_000);
    expect(earliestSendAt(state, fresh('b'), { gapMs: 1_000, newContactGapMs: 0 }, least)).toBe(11_000);
  });

  it('measures gaps from when the previous message reached the network', () => {
    const next = released({}, fresh('a'), 10_000);
    expect(next).toEqual({ lastTo: 'a', lastAt: 10_000, lastNewContactAt: 10_000 });
    expect(waitsForPrevious(next, known('b'), paced)).toBe(true);
    expect(waitsForPrevious(next, known('a'), paced)).toBe(false);
    expect(waitsForPrevious(next, fresh('b'), off)).toBe(false);
    const acked = settled(next, fresh('a'), 10_400);
    expect(earliestSendAt(acked, known('b'), paced, least)).toBe(11_400);
    // A first message to a new contact: the new-contact gap counts from its acknowledgement too.
    expect(earliestSendAt(acked, fresh('b'), paced, least)).toBe(15_400);
    // A late settle of an older message never moves the clock back.
    expect(settled(acked, fresh('a'), 10_100)).toEqual({ lastTo: 'a', lastAt: 10_400, lastNewContactAt: 10_400 });
  });

  it('leaves the new-contact clock alone when the message that reached the network went to a known contact', () => {
    const state = released({ lastTo: 'a', lastAt: 10_000, lastNewContactAt: 10_000 }, known('b'), 11_000);
    expect(settled(state, known('b'), 11_300)).toEqual({ lastTo: 'b', lastAt: 11_300, lastNewContactAt: 10_000 });
  });

  it('moves the new-contact clock on a first message acknowledged after the next message was let out', () => {
    // A first message to a, then (not spaced: the same recipient) a second one, before the first is acknowledged.
    const both = released(released({}, fresh('a'), 10_000), known('a'), 10_010);
    expect(settled(both, fresh('a'), 10_500).lastNewContactAt).toBe(10_500);
  });
});

describe('per-plan settings as configured', () => {
  it('reads one value for every plan, then per-plan overrides, later items winning', () => {
    expect(perPlan('1000')).toEqual({ free: 1000, basic: 1000, premium: 1000, enterprise: 1000 });
    expect(perPlan('1000, enterprise=0')).toEqual({ free: 1000, basic: 1000, premium: 1000, enterprise: 0 });
    expect(perPlan('free=3000,basic=2000')).toEqual({ free: 3000, basic: 2000, premium: 0, enterprise: 0 });
    expect(perPlan('0')).toEqual({ free: 0, basic: 0, premium: 0, enterprise: 0 });
  });

  it('refuses anything else', () => {
    for (const raw of ['', 'fast', 'gold=100', '-1', '1.5', 'free=']) expect(() => perPlan(raw), raw).toThrow(RangeError);
  });

  it('pairs both settings per plan', () => {
    expect(pacingByPlan('1000,enterprise=0', '5000').enterprise).toEqual({ gapMs: 0, newContactGapMs: 5000 });
  });
});

describe('how long "typing…" shows before a message', () => {
  it('grows with the text, between 1 and 3 seconds', () => {
    expect(typingMs(0)).toBe(1_000);
    expect(typingMs(40)).toBe(2_000);
    expect(typingMs(4_096)).toBe(3_000);
  });
});
