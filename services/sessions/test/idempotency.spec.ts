import { CREATE_SESSION_KIND, idempotencyKeyHash, idempotencyRequestHash, SessionsSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeQrDataUrl, Harness, uniquePhone } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

/** A create command as the gateway sends it for `Idempotency-Key: key` and `body`. */
function create(accountId: string, key: string, body: { name?: string } = {}) {
  const idempotency = { keyHash: idempotencyKeyHash(key), requestHash: idempotencyRequestHash(CREATE_SESSION_KIND, body) };
  return h.call(SessionsSubjects.create, { accountId, ...body, idempotency });
}

const listed = async (accountId: string) => (await h.call(SessionsSubjects.list, { accountId, limit: 100, offset: 0 })).sessions;

describe('creating a session with an Idempotency-Key', () => {
  it('answers a retry with the first session and its current QR: one session, one slot (free plan)', async () => {
    const accountId = await h.quota.account('free');
    const first = await create(accountId, 'create-1', { name: 'Support' });
    const again = await create(accountId, 'create-1', { name: 'Support' });
    expect(again).toMatchObject({ sessionId: first.sessionId, status: 'pending' });
    expect(decodeQrDataUrl(again.qrCode)).toBe(h.issuedQr.get(first.sessionId)?.at(-1));
    expect((await listed(accountId)).map((s) => s.sessionId)).toEqual([first.sessionId]);
    expect(await h.quota.activeSessions(accountId)).toBe(1);
  });

  it('shares one create between simultaneous retries', async () => {
    const accountId = await h.quota.account('free');
    const answers = await Promise.all([1, 2, 3].map(() => create(accountId, 'burst')));
    expect(new Set(answers.map((a) => a.sessionId)).size).toBe(1);
    expect(await listed(accountId)).toHaveLength(1);
    expect(await h.quota.activeSessions(accountId)).toBe(1);
  });

  it('refuses the key with another body: IDEMPOTENCY_KEY_REUSED, nothing created', async () => {
    const accountId = await h.quota.account('basic');
    await create(accountId, 'create-2', { name: 'Support' });
    await expect(create(accountId, 'create-2', { name: 'Sales' })).rejects.toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await listed(accountId)).toHaveLength(1);
    expect(await h.quota.activeSessions(accountId)).toBe(1);
  });

  it('keeps keys per account', async () => {
    const [a, b] = [await h.quota.account('basic'), await h.quota.account('basic')];
    const [fromA, fromB] = [await create(a, 'shared-key'), await create(b, 'shared-key')];
    expect(fromA.sessionId).not.toBe(fromB.sessionId);
  });

  it('once the session is connected, a retry names it with its status instead of a dead QR code', async () => {
    const accountId = await h.quota.account('basic');
    const { sessionId, qrCode } = await create(accountId, 'create-3');
    await h.control.scan(qrCode, uniquePhone());
    await h.statusBecomes(accountId, sessionId, 'connected');
    await expect(create(accountId, 'create-3')).rejects.toMatchObject({ code: 'SESSION_NOT_PENDING', details: { status: 'connected', sessionId } });
    expect(await listed(accountId)).toHaveLength(1);
  });

  it('frees the key when the create failed: the retry after a 429 runs again', async () => {
    const accountId = await h.quota.account('free');
    const taken = await h.call(SessionsSubjects.create, { accountId });
    await expect(create(accountId, 'create-4')).rejects.toMatchObject({ code: 'SESSION_LIMIT_REACHED' });
    await h.call(SessionsSubjects.delete, { accountId, sessionId: taken.sessionId });
    const created = await create(accountId, 'create-4');
    expect(created.sessionId).not.toBe(taken.sessionId);
    expect(await h.quota.activeSessions(accountId)).toBe(1);
  });
});
