import { SessionsSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, Harness } from './harness.js';

// Short-lived pairing codes, so running out of them takes about two seconds instead of 160.
const QR_LIFETIME_MS = 800;

let h: Harness;
beforeAll(async () => {
  h = await Harness.start({ pairing: { firstRefMs: QR_LIFETIME_MS, nextRefMs: QR_LIFETIME_MS, refCount: 2 }, chatNetwork: () => ({ qrTimeoutMs: QR_LIFETIME_MS }) });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('a QR code nobody scans', () => {
  it('times the session out, frees its slot, and refuses further QR requests', async () => {
    const accountId = await h.quota.account('free');
    const { sessionId } = await h.call(SessionsSubjects.create, { accountId });
    await h.statusBecomes(accountId, sessionId, 'timeout');
    await eventually(async () => ((await h.quota.activeSessions(accountId)) === 0 ? true : undefined));
    expect(h.issuedQr.get(sessionId)?.length).toBeGreaterThanOrEqual(2);
    await expect(h.call(SessionsSubjects.qr, { accountId, sessionId })).rejects.toMatchObject({ code: 'SESSION_NOT_PENDING', details: { status: 'timeout' } });

    const next = await h.call(SessionsSubjects.create, { accountId });
    expect(next.status).toBe('pending');
    const timedOut = await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0, status: 'timeout' });
    expect(timedOut.sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    expect(timedOut.sessions[0]?.statusReason).toMatchObject({ code: 'qr_timeout' });
  });
});
