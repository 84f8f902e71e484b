import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { ApiClient, eventually } from '../support/http.js';
import { PNG } from '../support/media.js';
import { startSwitchboardUnderTest } from '../support/harness.js';
import type { Mode, SwitchboardUnderTest } from '../support/harness.js';

// Erasure without breaking the record (issue 16, item 4), as an operator and an auditor see it:
// the admin API or the CLI erases an account's message contents; clients read "[erased]" where
// the contents were, with ids, times and statuses as before, the media file is gone, and the
// auditor's `audit verify` still finds every stored event in its chain.

let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
/** Words only the contents carry: none may be readable anywhere once erased. */
const SECRETS = ['parcel code 7731', 'the blue door', 'Pickup point Zuid', 'door code 4411'];
/** Any of them in a text (whole phrases: a random id may hold "4411"). */
const ANY_SECRET = new RegExp(SECRETS.join('|'));

/** Every file of a service's folder in the data dir, as bytes, with what each holds of `words`. */
function wordsOnDisk(dir: string, words: readonly string[]): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const bytes = readFileSync(join(dir, name));
    return words.filter((word) => bytes.includes(Buffer.from(word))).map((word) => `${name}: ${word}`);
  });
}

describe.each<Mode>(['embedded', 'distributed'])('erasing an account\'s message contents (%s mode)', (mode) => {
  const secretKey = randomBytes(32).toString('hex');
  let sut: SwitchboardUnderTest;
  let admin: ApiClient;
  /** What the CLI needs to reach the same stores and keys as the server. */
  let cliEnv: Record<string, string>;

  beforeAll(async () => {
    sut = await startSwitchboardUnderTest(mode, { env: { SWITCHBOARD_SECRET_KEY: secretKey } });
    admin = new ApiClient(sut.url, sut.adminKey);
    cliEnv = {
      SWITCHBOARD_SECRET_KEY: secretKey,
      ...(sut.natsUrl ? { SWITCHBOARD_NATS_URL: sut.natsUrl } : {}),
      ...(sut.cluster?.eventStoreUrl ? { SWITCHBOARD_EVENTSTORE_URL: sut.cluster.eventStoreUrl } : {}),
    };
  }, 180_000);
  afterAll(async () => sut?.close());

  /** A new account with a connected session whose contact reads at once. */
  async function accountInUse() {
    const created = await admin.post('/v1/admin/accounts', { name: 'Forget Me Ltd', plan: 'enterprise' });
    const { accountId, apiKey } = created.body.data as { accountId: string; apiKey: string };
    const api = admin.withKey(apiKey);
    const session = await api.post('/v1/sessions', {});
    const phone = newPhone('1333');
    await sut.emulator.scan(session.body.data.qrCode, phone);
    const sessionId = session.body.data.sessionId as string;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
    const contact = newPhone('1777');
    await sut.emulator.setContact(contact, { deliverAfterMs: 20, readAfterMs: 50 });
    return { accountId, apiKey, api, sessionId, phone, contact };
  }

  it('POST /v1/admin/accounts/{id}/erase: contents read [erased], the media file is gone, statuses and the chain stay', async () => {
    const { accountId, apiKey, api, sessionId, phone, contact } = await accountInUse();
    const text = await api.post('/v1/messages/text', { sessionId, to: contact, text: 'Your parcel code 7731 is ready' });
    const image = await api.post('/v1/messages/media', { sessionId, to: contact, mediaType: 'image', media: `data:image/png;base64,${PNG.toString('base64')}`, caption: 'by the blue door' });
    const place = await api.post('/v1/messages/location', { sessionId, to: contact, latitude: 52.379, longitude: 4.9, name: 'Pickup point Zuid' });
    const sent = [text, image, place].map((r) => {
      expect(r.status).toBe(201);
      return r.body.data as { messageId: string; timestamp: string };
    });
    for (const { messageId } of sent) await eventually(() => api.get(`/v1/messages/${messageId}`), (r) => r.body?.data?.status === 'read');
    await sut.emulator.send(contact, { to: phone, text: 'my door code 4411' } as never);
    const inbound = (await eventually(() => api.get(`/v1/messages?direction=in`), (r) => r.body?.data?.messages?.length === 1)).body.data.messages[0];
    expect(inbound).toMatchObject({ text: 'my door code 4411' });
    expect((await fetch(`${sut.url}/v1/messages/${sent[1]!.messageId}/media`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200);
    // Sealed in the store from the start: the messaging service's files never hold a content in the clear.
    if (mode === 'embedded') expect(wordsOnDisk(join(sut.dataDir, 'messaging'), SECRETS)).toEqual([]);
    const opened = await runCli(['audit', 'history', '--message', sent[0]!.messageId, '--json'], sut.dataDir, cliEnv);
    const factsBefore = JSON.parse(opened.stdout).facts as { type: string }[];
    expect(factsBefore.find((f) => f.type === 'MessageAccepted')).toMatchObject({ data: { content: { type: 'text', text: 'Your parcel code 7731 is ready' } } });

    const forbidden = await api.post(`/v1/admin/accounts/${accountId}/erase`);
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const erased = await admin.post(`/v1/admin/accounts/${accountId}/erase`);
    expect([erased.status, erased.body]).toEqual([200, {
      success: true,
      data: { accountId, erasedAt: expect.any(String), keysDestroyed: 1, blobsDeleted: 1, publicEventsErased: 1 },
    }]);

    // Ids, times and statuses as before; every content, sent or received, reads [erased].
    for (const [i, { messageId, timestamp }] of sent.entries()) {
      const lookup = await api.get(`/v1/messages/${messageId}`);
      expect(lookup.body.data).toMatchObject({ messageId, status: 'read', timestamp, type: ['text', 'media', 'location'][i], direction: 'out' });
    }
    const history = (await api.get('/v1/messages')).body.data.messages as Record<string, unknown>[];
    expect(history).toHaveLength(4);
    for (const item of history) expect(item).toMatchObject({ text: '[erased]', erased: true });
    expect(history.filter((m) => m['direction'] === 'out').map((m) => m['status'])).toEqual(['read', 'read', 'read']);
    expect(JSON.stringify(history)).not.toMatch(ANY_SECRET);
    expect(JSON.stringify(history)).not.toMatch(/"media":|"location":/);
    const received = await api.get(`/v1/messages/${inbound.messageId}`);
    expect(received.body.data).toMatchObject({ messageId: inbound.messageId, direction: 'in', from: contact, type: 'text', text: '[erased]', erased: true });
    const media = await api.get(`/v1/messages/${sent[1]!.messageId}/media`);
    expect([media.status, media.body.error.code]).toEqual([404, 'MEDIA_NOT_FOUND']);
    if (mode === 'embedded') {
      expect(existsSync(join(sut.dataDir, 'media', sha256(PNG).slice(0, 2), sha256(PNG)))).toBe(false);
      // The events service's copy (replays, webhook retries) is rewritten, on disk too.
      expect(wordsOnDisk(join(sut.dataDir, 'events'), SECRETS)).toEqual([]);
    }

    // The auditor's view: every chain intact, the facts still there, their contents erased.
    const verified = await runCli(['audit', 'verify'], sut.dataDir, cliEnv);
    expect([verified.code, verified.stderr]).toEqual([0, '']);
    expect(verified.stdout).toContain('No findings');
    const facts = JSON.parse((await runCli(['audit', 'history', '--message', sent[0]!.messageId, '--json'], sut.dataDir, cliEnv)).stdout).facts as { type: string; summary: string; data: unknown }[];
    // Every fact recorded before the erasure is still there. (MessageDelivered is among them unless
    // the read receipt, 30 ms behind it here, was recorded first: a read implies delivery.)
    expect(facts.map((f) => f.type)).toEqual(expect.arrayContaining(['MessageAccepted', 'MessageSent', 'MessageRead', ...factsBefore.map((f) => f.type)]));
    expect(facts.find((f) => f.type === 'MessageAccepted')).toMatchObject({ summary: expect.stringContaining('text [erased]'), data: { content: { type: 'text', erased: true } } });
    const account = await runCli(['audit', 'history', '--account', accountId], sut.dataDir, cliEnv);
    expect(account.stdout).toMatch(/MessageContentsErased +message-acc_/);
    expect(account.stdout).not.toMatch(ANY_SECRET);

    // Idempotent: the same erasure again, nothing left to do.
    const again = await admin.post(`/v1/admin/accounts/${accountId}/erase`);
    expect([again.status, again.body.data]).toEqual([200, { accountId, erasedAt: erased.body.data.erasedAt, keysDestroyed: 0, blobsDeleted: 0, publicEventsErased: 0 }]);
    const unknown = await admin.post('/v1/admin/accounts/acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F/erase');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'ACCOUNT_NOT_FOUND']);
    // The account keeps working: a message sent afterwards is sealed under a new key and readable.
    const later = await api.post('/v1/messages/text', { sessionId, to: contact, text: 'after the erasure' });
    expect(later.status).toBe(201);
    const newest = await eventually(() => api.get('/v1/messages'), (r) => r.body?.data?.messages?.[0]?.messageId === later.body.data.messageId);
    expect(newest.body.data.messages[0]).toMatchObject({ text: 'after the erasure' });
  });

  it('switchboard accounts erase: the same from the CLI (on the stores beside the running server, or over NATS)', async () => {
    const { accountId, api, sessionId, contact } = await accountInUse();
    const sent = await api.post('/v1/messages/text', { sessionId, to: contact, text: 'Your parcel code 7731 again' });
    const messageId = sent.body.data.messageId as string;
    await eventually(() => api.get(`/v1/messages/${messageId}`), (r) => r.body?.data?.status === 'read');

    const run = await runCli(['accounts', 'erase', accountId, '--json'], sut.dataDir, cliEnv);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(JSON.parse(run.stdout)).toEqual({ accountId, erasedAt: expect.any(String), keysDestroyed: 1, blobsDeleted: 0, publicEventsErased: 0 });
    // Embedded: the running server meets the recorded erasure in its store within a moment.
    await eventually(() => api.get('/v1/messages'), (r) => r.body?.data?.messages?.[0]?.text === '[erased]', 10_000);
    expect((await api.get(`/v1/messages/${messageId}`)).body.data).toMatchObject({ messageId, status: 'read' });
    const verified = await runCli(['audit', 'verify', '--service', 'messaging'], sut.dataDir, cliEnv);
    expect([verified.code, verified.stderr]).toEqual([0, '']);
    const bad = await runCli(['accounts', 'erase', 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F'], sut.dataDir, cliEnv);
    expect([bad.code, bad.stderr]).toEqual([1, 'switchboard: ACCOUNT_NOT_FOUND: No account with this id exists.\n']);
  });
});
