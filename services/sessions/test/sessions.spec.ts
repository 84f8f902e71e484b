import { SessionsSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQrDataUrl, eventually, Harness, newAccountId, uniquePhone } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('creating and connecting a session', () => {
  it('answers pending with a PNG of the current pairing code, which a phone scans to connect', async () => {
    const accountId = await h.quota.account();
    const created = await h.call(SessionsSubjects.create, { accountId, name: 'Support line' });
    expect(created.status).toBe('pending');
    expect(created.qrCode).toMatch(/^data:image\/png;base64,/);
    const pairingCode = decodeQrDataUrl(created.qrCode);
    expect(pairingCode).toBe(h.issuedQr.get(created.sessionId)?.at(-1));

    const pending = await h.call(SessionsSubjects.get, { accountId, sessionId: created.sessionId });
    expect(pending).toMatchObject({ sessionId: created.sessionId, status: 'pending', name: 'Support line' });

    const phone = uniquePhone();
    await h.control.scan(created.qrCode, phone);
    await h.statusBecomes(accountId, created.sessionId, 'connected');
    const connected = await h.call(SessionsSubjects.get, { accountId, sessionId: created.sessionId });
    expect(Date.parse(connected.lastActivity)).toBeGreaterThanOrEqual(Date.parse(connected.createdAt));
    expect(connected.lastActivity).not.toBe(pending.lastActivity);
  });

  it('shows null as the name when none was given', async () => {
    const accountId = await h.quota.account();
    const { sessionId } = await h.call(SessionsSubjects.create, { accountId });
    expect(await h.call(SessionsSubjects.get, { accountId, sessionId })).toMatchObject({ name: null, status: 'pending' });
  });
});

describe('QR refresh', () => {
  it('returns the current code with its expiry while pending, then SESSION_NOT_PENDING once connected', async () => {
    const accountId = await h.quota.account();
    const { sessionId, qrCode } = await h.call(SessionsSubjects.create, { accountId });
    const refreshed = await h.call(SessionsSubjects.qr, { accountId, sessionId });
    expect(decodeQrDataUrl(refreshed.qrCode)).toBe(h.issuedQr.get(sessionId)?.at(-1));
    expect(Date.parse(refreshed.expiresAt)).toBeGreaterThan(Date.now());

    await h.control.scan(qrCode, uniquePhone());
    await h.statusBecomes(accountId, sessionId, 'connected');
    await expect(h.call(SessionsSubjects.qr, { accountId, sessionId })).rejects.toMatchObject({
      code: 'SESSION_NOT_PENDING',
      details: { status: 'connected' },
    });
  });
});

describe('listing sessions', () => {
  it('lists an account\'s sessions newest first, pages them, counts them all, and filters by status', async () => {
    const accountId = await h.quota.account();
    const first = await h.connectedSession(accountId, uniquePhone(), 'first');
    const second = (await h.call(SessionsSubjects.create, { accountId, name: 'second' })).sessionId;
    const third = (await h.call(SessionsSubjects.create, { accountId, name: 'third' })).sessionId;

    const all = await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 });
    expect(all.sessions.map((s) => s.sessionId)).toEqual([third, second, first]);
    expect(all).toMatchObject({ total: 3, limit: 10, offset: 0 });

    const page = await h.call(SessionsSubjects.list, { accountId, limit: 2, offset: 1 });
    expect(page.sessions.map((s) => s.name)).toEqual(['second', 'first']);
    expect(page.total).toBe(3);

    const pending = await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0, status: 'pending' });
    expect(pending.sessions.map((s) => s.sessionId)).toEqual([third, second]);
    expect(pending.total).toBe(2);
    const connected = await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0, status: 'connected' });
    expect(connected.sessions.map((s) => s.sessionId)).toEqual([first]);
    expect(await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0, status: 'error' })).toMatchObject({ sessions: [], total: 0 });
  });

  it('never shows another account\'s sessions', async () => {
    const owner = await h.quota.account();
    await h.call(SessionsSubjects.create, { accountId: owner });
    expect(await h.call(SessionsSubjects.list, { accountId: newAccountId(), limit: 10, offset: 0 })).toMatchObject({ sessions: [], total: 0 });
  });
});

describe('unknown and foreign sessions', () => {
  it('answers SESSION_NOT_FOUND for an unknown id and for another account\'s session, on every subject', async () => {
    const owner = await h.quota.account();
    const { sessionId } = await h.call(SessionsSubjects.create, { accountId: owner });
    const stranger = newAccountId();
    const unknown = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
    for (const ref of [{ accountId: stranger, sessionId }, { accountId: owner, sessionId: unknown }]) {
      await expect(h.call(SessionsSubjects.get, ref)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
      await expect(h.call(SessionsSubjects.qr, ref)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
      await expect(h.call(SessionsSubjects.delete, ref)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    }
    expect((await h.call(SessionsSubjects.get, { accountId: owner, sessionId })).status).toBe('pending');
  });
});

describe('plan slots', () => {
  it('refuses a second active session on the free plan, and frees the slot on delete', async () => {
    const accountId = await h.quota.account('free');
    const { sessionId } = await h.call(SessionsSubjects.create, { accountId });
    await expect(h.call(SessionsSubjects.create, { accountId })).rejects.toMatchObject({ code: 'SESSION_LIMIT_REACHED', details: { limit: 1, used: 1 } });
    expect((await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 })).total).toBe(1);

    await h.call(SessionsSubjects.delete, { accountId, sessionId });
    expect(await h.quota.activeSessions(accountId)).toBe(0);
    expect((await h.call(SessionsSubjects.create, { accountId })).status).toBe('pending');
  });
});

describe('deleting a session', () => {
  it('logs the device out on the network, and the session is gone afterwards', async () => {
    const accountId = await h.quota.account();
    const phone = uniquePhone();
    const sessionId = await h.connectedSession(accountId, phone);
    expect(await h.control.device(phone)).toMatchObject({ phone });

    const reply = await h.call(SessionsSubjects.delete, { accountId, sessionId });
    expect(reply.sessionId).toBe(sessionId);
    await expect(h.call(SessionsSubjects.get, { accountId, sessionId })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    await expect(h.call(SessionsSubjects.delete, { accountId, sessionId })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
    expect((await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 })).total).toBe(0);
    await eventually(async () => ((await h.control.device(phone).catch((e: { code?: string }) => e.code)) === 'device_not_linked' ? true : undefined));
    expect(await h.quota.activeSessions(accountId)).toBe(0);
  });
});

describe('the phone unlinks the device', () => {
  it('marks the session disconnected and frees its slot', async () => {
    const accountId = await h.quota.account();
    const phone = uniquePhone();
    const sessionId = await h.connectedSession(accountId, phone);
    expect(await h.quota.activeSessions(accountId)).toBe(1);
    await h.control.logout(phone);
    await h.statusBecomes(accountId, sessionId, 'disconnected');
    expect((await h.call(SessionsSubjects.get, { accountId, sessionId })).statusReason).toEqual({
      code: 'logged_out',
      message: 'The device was unlinked from the phone (or logged out); create a new session to link it again.',
    });
    await eventually(async () => ((await h.quota.activeSessions(accountId)) === 0 ? true : undefined));
    await expect(h.call(SessionsSubjects.qr, { accountId, sessionId })).rejects.toMatchObject({ code: 'SESSION_NOT_PENDING', details: { status: 'disconnected' } });
  });

  it('keeps a connected session connected through a transient drop', async () => {
    const accountId = await h.quota.account();
    const phone = uniquePhone();
    const sessionId = await h.connectedSession(accountId, phone);
    await h.control.drop(phone);
    await eventually(async () => ((await h.control.device(phone)).online ? true : undefined));
    expect((await h.call(SessionsSubjects.get, { accountId, sessionId })).status).toBe('connected');
  });
});
