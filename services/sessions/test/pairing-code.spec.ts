import { CREATE_SESSION_KIND, idempotencyKeyHash, idempotencyRequestHash, SessionsSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQrDataUrl, eventually, Harness, uniquePhone } from './harness.js';

// Pairing by code ("link with phone number"): the create answers the code beside the QR; the
// emulator's fake phone of that number types it; a wrong one leaves the session waiting.

const PAIRING_CODE = /^[1-9A-HJ-NP-TV-Z]{4}-[1-9A-HJ-NP-TV-Z]{4}$/;

/** Another code of the same alphabet: what a person mistyping one character enters. */
const mistyped = (code: string): string => `${code.startsWith('A') ? 'B' : 'A'}${code.slice(1)}`;

describe('pairing a session by code', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('answers the code to type beside the QR, and connects the session once the phone of that number enters it', async () => {
    const accountId = await h.quota.account('free');
    const phone = uniquePhone();
    const created = await h.call(SessionsSubjects.create, { accountId, phoneNumber: phone });
    expect(created).toMatchObject({ status: 'pending', pairingCode: expect.stringMatching(PAIRING_CODE) });
    // The QR is the network's current one and still links too, until one of the two is used.
    expect(decodeQrDataUrl(created.qrCode)).toBe(h.issuedQr.get(created.sessionId)?.at(-1));
    const qr = await h.call(SessionsSubjects.qr, { accountId, sessionId: created.sessionId });
    expect(decodeQrDataUrl(qr.qrCode)).toBe(h.issuedQr.get(created.sessionId)?.at(-1));

    await expect(h.control.pair(phone, created.pairingCode ?? '')).resolves.toMatchObject({ phone });
    await h.statusBecomes(accountId, created.sessionId, 'connected');
    expect(await h.control.device(phone)).toMatchObject({ online: true, connections: 1 });
    await expect(h.call(SessionsSubjects.qr, { accountId, sessionId: created.sessionId })).rejects.toMatchObject({ code: 'SESSION_NOT_PENDING' });
  });

  it('keeps the session pending after a wrong code, and the right code still connects it', async () => {
    const accountId = await h.quota.account('free');
    const phone = uniquePhone();
    const { sessionId, pairingCode = '' } = await h.call(SessionsSubjects.create, { accountId, phoneNumber: phone });
    await expect(h.control.pair(phone, mistyped(pairingCode))).rejects.toMatchObject({ status: 422, code: 'code_incorrect' });
    expect((await h.call(SessionsSubjects.get, { accountId, sessionId })).status).toBe('pending');
    expect(await h.quota.activeSessions(accountId)).toBe(1);

    await h.control.pair(phone, pairingCode.toLowerCase());
    await h.statusBecomes(accountId, sessionId, 'connected');
  });

  it('answers a repeated Idempotency-Key with the same session and code; another number under the key is refused', async () => {
    const accountId = await h.quota.account('basic');
    const phone = uniquePhone();
    const withKey = (phoneNumber: string) => {
      const body = { phoneNumber };
      const idempotency = { keyHash: idempotencyKeyHash('by-code'), requestHash: idempotencyRequestHash(CREATE_SESSION_KIND, body) };
      return h.call(SessionsSubjects.create, { accountId, ...body, idempotency });
    };
    const first = await withKey(phone);
    const again = await withKey(phone);
    expect(again).toMatchObject({ sessionId: first.sessionId, pairingCode: first.pairingCode, replayed: true });
    await expect(withKey(uniquePhone())).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
  });

  it('answers a QR-only create as before: no pairing code', async () => {
    const accountId = await h.quota.account('free');
    const created = await h.call(SessionsSubjects.create, { accountId });
    expect(Object.keys(created).sort()).toEqual(['qrCode', 'sessionId', 'status']);
  });
});

describe('a pairing code nobody enters', () => {
  // Short-lived refs, so the pairing ends after about two seconds instead of 160.
  const REF_MS = 800;
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ pairing: { firstRefMs: REF_MS, nextRefMs: REF_MS, refCount: 2 }, chatNetwork: () => ({ qrTimeoutMs: REF_MS }) });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('times the session out with the pairing, as an unscanned QR: the code no longer links, the slot is free', async () => {
    const accountId = await h.quota.account('free');
    const phone = uniquePhone();
    const startedAt = Date.now();
    const { sessionId, pairingCode = '' } = await h.call(SessionsSubjects.create, { accountId, phoneNumber: phone });
    await h.statusBecomes(accountId, sessionId, 'timeout');
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(2 * REF_MS);
    const view = await h.call(SessionsSubjects.get, { accountId, sessionId });
    expect(view.statusReason).toMatchObject({ code: 'qr_timeout' });
    await expect(h.control.pair(phone, pairingCode)).rejects.toMatchObject({ status: 404, code: 'no_code_request' });
    await eventually(async () => ((await h.quota.activeSessions(accountId)) === 0 ? true : undefined));
  });
});
