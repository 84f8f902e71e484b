import { describe, expect, it } from 'vitest';
import { admitLookup, ContactChecks, LOOKUP_WINDOW_MS, LOOKUPS_PER_WINDOW } from './contact-checks.js';

describe('contact lookups per session', () => {
  it('admits lookups up to the limit in a window, then says when the oldest leaves it', () => {
    expect(admitLookup([], 1_000, 2, 60_000)).toEqual({ admitted: true });
    expect(admitLookup([1_000], 1_500, 2, 60_000)).toEqual({ admitted: true });
    expect(admitLookup([1_000, 1_500], 2_000, 2, 60_000)).toEqual({ admitted: false, retryAfterMs: 59_000 });
    // The oldest left the window: one more fits.
    expect(admitLookup([1_000, 1_500], 61_000, 2, 60_000)).toEqual({ admitted: true });
  });

  it('asks the network once per number while the answer is kept, and refuses the lookup past the limit with its retry time', async () => {
    let now = 0;
    const checks = new ContactChecks(() => now);
    const asked: string[] = [];
    const lookup = async (phone: string) => (asked.push(phone), phone.endsWith('0') ? { onWhatsApp: true, lid: `9${phone}@lid` } : { onWhatsApp: false });
    const ref = { accountId: 'acc_00000000000000000000000000', sessionId: 'ses_00000000000000000000000001' };
    expect(await checks.check({ ...ref, phone: '15550000000' }, lookup)).toEqual({ phone: '15550000000', onWhatsApp: true, lid: '915550000000@lid' });
    expect(await checks.check({ ...ref, phone: '15550000000' }, lookup)).toEqual({ phone: '15550000000', onWhatsApp: true, lid: '915550000000@lid' });
    expect(asked).toEqual(['15550000000']);
    for (let i = 1; i < LOOKUPS_PER_WINDOW; i++) await checks.check({ ...ref, phone: `1555000${String(i).padStart(4, '0')}` }, lookup);
    now = 10_000;
    await expect(checks.check({ ...ref, phone: '15559999999' }, lookup)).rejects.toMatchObject({
      code: 'CONTACT_CHECK_LIMIT_REACHED',
      details: { limit: LOOKUPS_PER_WINDOW, retryAfterSeconds: (LOOKUP_WINDOW_MS - 10_000) / 1000 },
    });
    // Another session has a window of its own; a kept answer is no new lookup.
    expect((await checks.check({ ...ref, sessionId: 'ses_00000000000000000000000002', phone: '15559999999' }, lookup)).onWhatsApp).toBe(false);
    expect((await checks.check({ ...ref, phone: '15550000000' }, lookup)).onWhatsApp).toBe(true);
    now = LOOKUP_WINDOW_MS;
    expect((await checks.check({ ...ref, phone: '15559999999' }, lookup)).onWhatsApp).toBe(false);
  });
});
