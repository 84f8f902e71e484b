import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Connection } from './connection.js';
import { Registration } from './pairing.js';

describe('QR ref windows', () => {
  afterEach(() => vi.useRealTimers());

  it('accepts each ref until its window ends (first window, then the next ones), then stops the registration', () => {
    vi.useFakeTimers();
    const expired = vi.fn();
    const registration = new Registration({} as Connection, { firstRefMs: 1000, nextRefMs: 500, refCount: 3 }, expired);
    const [first = '', second = '', third = ''] = registration.refs;
    const at = (ms: number) => registration.issuedAt + ms;
    expect(registration.refState(first, at(900))).toBe('valid');
    expect(registration.refState(first, at(1300))).toBe('expired');
    expect(registration.refState(second, at(1300))).toBe('valid');
    expect(registration.refState(second, at(1800))).toBe('expired');
    expect(registration.refState(third, at(1800))).toBe('valid');
    expect(registration.refState('2@unknown', at(0))).toBe('unknown');
    vi.advanceTimersByTime(2000 + 1999);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(expired).toHaveBeenCalledWith(registration);
  });

  it('issues all refs in one pair-device stanza, each different', () => {
    const registration = new Registration({} as Connection, { firstRefMs: 60_000, nextRefMs: 20_000, refCount: 6 }, () => {});
    const stanza = registration.pairDeviceNode();
    const pairDevice = Array.isArray(stanza.content) ? stanza.content[0] : undefined;
    expect(Array.isArray(pairDevice?.content) ? pairDevice.content.length : 0).toBe(6);
    expect(new Set(registration.refs).size).toBe(6);
    registration.dispose();
  });
});
