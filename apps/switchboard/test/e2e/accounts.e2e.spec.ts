import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEventStore } from '@switchboard/eventstore';
import { ApiClient, eventually } from '../support/http.js';
import { startSwitchboardUnderTest } from '../support/harness.js';
import type { Mode, SwitchboardUnderTest } from '../support/harness.js';

// Closing an account as an operator does it, from the admin API and from the CLI: its key stops
// working, its session is deleted and its device logged out of the (emulated) network, and its
// history stays: the admin API still shows the account, closed, and the event stores (on disk, or
// in PostgreSQL) keep the message it sent and the session's deletion.

let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;
const bin = fileURLToPath(new URL('../../bin/switchboard.js', import.meta.url));

interface StoredEvent { type: string; data: Record<string, unknown> }

/** The events of one stream as a service stored them (SQLite beside the running server, or its PostgreSQL schema). */
async function storedEvents(sut: SwitchboardUnderTest, service: string, stream: string): Promise<StoredEvent[]> {
  const url = sut.cluster?.eventStoreUrl;
  const store = openEventStore({ url, schema: service, sqlitePath: join(sut.dataDir, service, 'events.sqlite') });
  try {
    return (await store.readStream(stream)).map((event) => ({ type: event.type, data: event.data as Record<string, unknown> }));
  } finally {
    await store.close();
  }
}

function cliJson(args: string[], env: Record<string, string>): Promise<Record<string, unknown>> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SWITCHBOARD_'))) as Record<string, string>;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [bin, ...args, '--json'], { env: { ...clean, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`switchboard ${args.join(' ')}: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as Record<string, unknown>);
    });
  });
}

describe.each<Mode>(['embedded', 'distributed'])('closing an account (%s mode)', (mode) => {
  let sut: SwitchboardUnderTest;
  let admin: ApiClient;

  beforeAll(async () => {
    sut = await startSwitchboardUnderTest(mode);
    admin = new ApiClient(sut.url, sut.adminKey);
  }, 180_000);
  afterAll(async () => sut?.close());

  /** A new account with its key, a connected session on a fresh phone, and one message it sent. */
  async function accountInUse() {
    const created = await admin.post('/v1/admin/accounts', { name: 'Leaving Ltd', plan: 'basic' });
    expect(created.status).toBe(201);
    const { accountId, apiKey } = created.body.data as { accountId: string; apiKey: string };
    const api = admin.withKey(apiKey);
    const session = await api.post('/v1/sessions', {});
    const phone = newPhone('1333');
    await sut.emulator.scan(session.body.data.qrCode, phone);
    const sessionId = session.body.data.sessionId as string;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
    const sent = await api.post('/v1/messages/text', { sessionId, to: newPhone('1666'), text: 'goodbye' });
    expect(sent.status).toBe(201);
    return { accountId, api, sessionId, phone, messageId: sent.body.data.messageId as string };
  }

  /** What the operator can still see once it is closed: the account, closed; the stores, kept. */
  async function closedWithHistory(account: Awaited<ReturnType<typeof accountInUse>>, closedAt: string) {
    const shown = await admin.get(`/v1/admin/accounts/${account.accountId}`);
    expect([shown.status, shown.body.data]).toEqual([200, expect.objectContaining({ accountId: account.accountId, name: 'Leaving Ltd', closedAt, activeSessions: 0 })]);
    const listed = await admin.get('/v1/admin/accounts?limit=100');
    expect(listed.body.data.accounts).toContainEqual(expect.objectContaining({ accountId: account.accountId, closedAt }));
    const session = await storedEvents(sut, 'sessions', `session-${account.sessionId}`);
    expect(session.at(-1)).toMatchObject({ type: 'SessionDeleted', data: { previousStatus: 'connected', loggedOut: true } });
    const message = (await storedEvents(sut, 'messaging', `message-${account.messageId}`)).map((e) => e.type);
    expect(message).toEqual(expect.arrayContaining(['MessageAccepted', 'MessageSent']));
    expect((await storedEvents(sut, 'quota', `account-${account.accountId}`)).map((e) => e.type)).toContain('AccountClosed');
  }

  it('DELETE /v1/admin/accounts/{id}: key refused, session deleted and logged out, account still shown, closed; again 200', async () => {
    const account = await accountInUse();
    expect(await sut.emulator.device(account.phone)).toMatchObject({ phone: account.phone });

    const closed = await admin.delete(`/v1/admin/accounts/${account.accountId}`);
    expect([closed.status, closed.body]).toEqual([200, {
      success: true,
      data: { accountId: account.accountId, closedAt: expect.any(String), sessionsDeleted: 1, keysRevoked: 1 },
    }]);
    const { closedAt } = closed.body.data as { closedAt: string };

    const refused = await account.api.get(`/v1/sessions/${account.sessionId}`);
    expect([refused.status, refused.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    expect((await account.api.post('/v1/sessions', {})).status).toBe(401);
    await expect(sut.emulator.device(account.phone)).rejects.toMatchObject({ status: 404 });
    await closedWithHistory(account, closedAt);

    const key = await admin.post(`/v1/admin/accounts/${account.accountId}/keys`, {});
    expect([key.status, key.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const again = await admin.delete(`/v1/admin/accounts/${account.accountId}`);
    expect([again.status, again.body.data]).toEqual([200, { accountId: account.accountId, closedAt, sessionsDeleted: 0, keysRevoked: 0 }]);
    const unknown = await admin.delete('/v1/admin/accounts/acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    expect((await account.api.withKey(sut.apiKey).get('/v1/sessions')).status).toBe(200); // other accounts carry on
  });

  it('switchboard accounts close: the same, over NATS or on the store beside the running server', async () => {
    const account = await accountInUse();
    // Distributed: through the subjects, like the gateway. Embedded: on the quota store, the running
    // server's sessions service deleting the session on the AccountClosed fact.
    const env: Record<string, string> = sut.natsUrl ? { SWITCHBOARD_NATS_URL: sut.natsUrl } : { SWITCHBOARD_DATA_DIR: sut.dataDir };
    const closed = await cliJson(['accounts', 'close', account.accountId], env);
    expect(closed).toEqual({ accountId: account.accountId, closedAt: expect.any(String), keysRevoked: 1, sessionsDeleted: mode === 'distributed' ? 1 : null });

    await eventually(() => account.api.get('/v1/sessions'), (r) => r.status === 401, 5_000);
    await eventually(() => sut.emulator.device(account.phone).then(() => 'linked', () => 'gone'), (state) => state === 'gone');
    await eventually(() => admin.get(`/v1/admin/accounts/${account.accountId}`), (r) => r.body?.data?.activeSessions === 0);
    await closedWithHistory(account, closed.closedAt as string);
  });
});
