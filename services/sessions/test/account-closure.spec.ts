import { SessionsSubjects } from '@switchboard/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, Harness, uniquePhone } from './harness.js';

// Closing an account, on the sessions side: every session of it deleted as DELETE /v1/sessions/{id}
// deletes one (logged out of the network, gone from the API, its plan slot freed), whichever way
// the closure reaches the service.

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const unlinked = (phone: string) =>
  eventually(async () => ((await h.control.device(phone).catch((e: { code?: string }) => e.code)) === 'device_not_linked' ? true : undefined));

async function gone(accountId: string, sessionIds: string[]): Promise<void> {
  for (const sessionId of sessionIds) {
    await expect(h.call(SessionsSubjects.get, { accountId, sessionId })).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
  }
  expect((await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 })).total).toBe(0);
  expect(await h.quota.activeSessions(accountId)).toBe(0);
}

describe('sb.v1.sessions.deleteAll', () => {
  it('deletes every session of the account, connected or pending, and answers which; again, it finds none', async () => {
    const accountId = await h.quota.account('basic');
    const other = await h.quota.account('basic');
    const phone = uniquePhone();
    const connected = await h.connectedSession(accountId, phone);
    const { sessionId: pending } = await h.call(SessionsSubjects.create, { accountId });
    const { sessionId: kept } = await h.call(SessionsSubjects.create, { accountId: other });

    const reply = await h.call(SessionsSubjects.deleteAll, { accountId });
    expect(reply.accountId).toBe(accountId);
    expect([...reply.deleted].sort()).toEqual([connected, pending].sort());
    await gone(accountId, [connected, pending]);
    await unlinked(phone);
    expect(await h.call(SessionsSubjects.deleteAll, { accountId })).toEqual({ accountId, deleted: [] });
    // Another account's sessions are not touched.
    expect((await h.call(SessionsSubjects.get, { accountId: other, sessionId: kept })).status).toBe('pending');
  });
});

describe('the AccountClosed fact', () => {
  it('deletes the sessions of an account closed where nobody called the sessions service (the CLI on the store)', async () => {
    const accountId = await h.quota.account('basic');
    const phone = uniquePhone();
    const sessionId = await h.connectedSession(accountId, phone);
    await h.quota.closeAccount(accountId);
    await eventually(async () => ((await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 })).total === 0 ? true : undefined));
    // The start-up sweep works in the background: the slot is freed just after the deletion is recorded.
    await eventually(async () => ((await h.quota.activeSessions(accountId)) === 0 ? true : undefined));
    await gone(accountId, [sessionId]);
    await unlinked(phone);
  });

  it('a request arriving with the fact reports what was deleted, whichever of the two did it', async () => {
    const accountId = await h.quota.account('basic');
    const phone = uniquePhone();
    const sessionId = await h.connectedSession(accountId, phone);
    await h.quota.closeAccount(accountId);
    expect(await h.call(SessionsSubjects.deleteAll, { accountId })).toEqual({ accountId, deleted: [sessionId] });
    await gone(accountId, [sessionId]);
    await unlinked(phone);

    // The fact done before the request comes: the request still reports its deletion, once.
    const later = await h.quota.account('basic');
    const laterSession = await h.connectedSession(later, uniquePhone());
    await h.quota.closeAccount(later);
    await eventually(async () => ((await h.call(SessionsSubjects.list, { accountId: later, limit: 10, offset: 0 })).total === 0 ? true : undefined));
    expect(await h.call(SessionsSubjects.deleteAll, { accountId: later })).toEqual({ accountId: later, deleted: [laterSession] });
    expect(await h.call(SessionsSubjects.deleteAll, { accountId: later })).toEqual({ accountId: later, deleted: [] });
  });

  it('is caught up at start when it was published while the service was down', async () => {
    const accountId = await h.quota.account('basic');
    const phone = uniquePhone();
    const sessionId = await h.connectedSession(accountId, phone);
    await h.service?.close();
    await h.quota.closeAccount(accountId);
    await h.startService();
    await eventually(async () => ((await h.call(SessionsSubjects.list, { accountId, limit: 10, offset: 0 })).total === 0 ? true : undefined));
    // The start-up sweep works in the background: the slot is freed just after the deletion is recorded.
    await eventually(async () => ((await h.quota.activeSessions(accountId)) === 0 ? true : undefined));
    await gone(accountId, [sessionId]);
    await unlinked(phone);
  }, 60_000);
});
