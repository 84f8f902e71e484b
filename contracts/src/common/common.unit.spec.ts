import { describe, expect, it } from 'vitest';
import { EXAMPLE_IDS } from '../examples/ids.js';
import { AccountId, ID_PREFIX, KeyId, MessageId, mintedAtOf, SessionId } from './ids.js';
import { Phone } from './phone.js';
import { PLAN_LIMITS, Plan } from './plans.js';
import { nextUtcMidnight, utcDayOf } from './time.js';

describe('ids', () => {
  it.each([
    [SessionId, EXAMPLE_IDS.session],
    [MessageId, EXAMPLE_IDS.message],
    [AccountId, EXAMPLE_IDS.account],
    [KeyId, EXAMPLE_IDS.key],
  ])('accepts %#: %s', (schema, id) => {
    expect(schema.parse(id)).toBe(id);
    expect(id.length).toBe(4 + 26);
  });

  it.each([
    ['ses_01JD8Z6Q9V4N2C3B5X7M1K0P2', 'one character short'],
    ['ses_01JD8Z6Q9V4N2C3B5X7M1K0P2RR', 'one character long'],
    ['ses_01jd8z6q9v4n2c3b5x7m1k0p2r', 'lower case'],
    ['ses_01JD8Z6Q9V4N2C3B5X7M1K0P2I', 'I is not Crockford base32'],
    ['ses_01JD8Z6Q9V4N2C3B5X7M1K0P2U', 'U is not Crockford base32'],
    ['ses_81JD8Z6Q9V4N2C3B5X7M1K0P2R', 'timestamp overflows 48 bits'],
    ['msg_01JD8Z6Q9V4N2C3B5X7M1K0P2R', 'wrong prefix'],
    ['01JD8Z6Q9V4N2C3B5X7M1K0P2R', 'no prefix'],
  ])('rejects %s (%s)', (id) => {
    expect(SessionId.safeParse(id).success).toBe(false);
  });

  it('uses the documented prefixes', () => {
    expect(ID_PREFIX).toEqual({ session: 'ses_', message: 'msg_', account: 'acc_', key: 'key_', webhook: 'wh_' });
  });

  it('say when they were minted, and nothing for one without a ULID', () => {
    expect(mintedAtOf('msg_01JD8Z7A1B2C3D4E5F6G7H8J9K')).toBe(Date.parse('2024-11-22T03:39:03.083Z'));
    expect(mintedAtOf('acc_01JD8Z7A1B2C3D4E5F6G7H8J9K')).toBe(Date.parse('2024-11-22T03:39:03.083Z'));
    expect(mintedAtOf('msg_short')).toBeNull();
    expect(mintedAtOf('msg_01JD8Z7A!B2C3D4E5F6G7H8J9K')).toBeNull();
  });
  it('shows an example in the message', () => {
    expect(SessionId.safeParse('x').error?.issues[0]?.message).toContain('"ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R"');
  });
});

describe('phone', () => {
  it.each(['1234567', '15551234567', '491701234567', '123456789012345'])('accepts %s', (phone) => {
    expect(Phone.parse(phone)).toBe(phone);
  });

  it.each(['123456', '1234567890123456', '07911123456', '+15551234567', '1555 123 4567', '1555-123-4567', '', '１５５５１２３４５６７'])(
    'rejects %j with an example in the message',
    (phone) => {
      const message = Phone.safeParse(phone).error?.issues[0]?.message;
      expect(message).toContain('e.g. "15551234567"');
    },
  );
});

describe('plans', () => {
  it('has the limits of the spec tables', () => {
    expect(Plan.options).toEqual(['free', 'basic', 'premium', 'enterprise']);
    expect(PLAN_LIMITS).toEqual({
      free: { maxSessions: 1, messagesPerDay: 50 },
      basic: { maxSessions: 5, messagesPerDay: 1000 },
      premium: { maxSessions: 20, messagesPerDay: 10000 },
      enterprise: { maxSessions: null, messagesPerDay: null },
    });
  });
});

describe('UTC days', () => {
  it('buckets by the UTC date, not the local one', () => {
    expect(utcDayOf(new Date('2026-11-21T23:59:59.999Z'))).toBe('2026-11-21');
    expect(utcDayOf(new Date('2026-11-22T00:30:00+01:00'))).toBe('2026-11-21');
  });

  it('resets at the next 00:00 UTC, across month and year ends', () => {
    expect(nextUtcMidnight(new Date('2026-11-21T10:00:00Z')).toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(nextUtcMidnight(new Date('2026-12-31T23:59:59Z')).toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(nextUtcMidnight(new Date('2026-11-22T00:00:00Z')).toISOString()).toBe('2026-11-23T00:00:00.000Z');
  });
});
