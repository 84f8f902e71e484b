import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { initAuthCreds } from '@whiskeysockets/baileys';
import type { WAMessage } from '@whiskeysockets/baileys';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SecretCipher, SecretDecryptionError } from '@switchboard/service-kit';
import { LidSenders } from '../baileys/lid-senders.js';
import { CREDS_KIND, credentialsAssociatedData, type CredentialsStore } from './credentials-store.js';
import { KvCredentialsStore } from './kv-credentials-store.js';
import { SessionCredentials } from './session-credentials.js';
import { SqliteCredentialsStore } from './sqlite-credentials-store.js';

// The same behaviour from both adapters: SQLite (embedded mode) and the JetStream KV bucket
// (distributed mode) on the NATS server the tests share.
const NATS_URL = process.env['SWITCHBOARD_NATS_URL'] ?? 'nats://127.0.0.1:4222';

let nats: NatsConnection;
beforeAll(async () => {
  nats = await connect({ servers: NATS_URL, name: 'credentials-store-test' });
});
afterAll(async () => {
  await nats?.close();
});

/** Where one test keeps its credentials: `open` gives a store on it (again, under any key). */
interface Place {
  open(key: Buffer): Promise<CredentialsStore>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function sqlitePlace(): Place {
  const dir = mkdtempSync(join(tmpdir(), 'sb-creds-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return { open: async (key) => track(new SqliteCredentialsStore({ path: join(dir, 'sessions.db'), key })) };
}

/** A bucket of this test's own, deleted afterwards. */
function kvBucket(): string {
  const bucket = `test_creds_${randomBytes(6).toString('hex')}`;
  cleanups.push(async () => {
    await (await jetstreamManager(nats)).streams.delete(`KV_${bucket}`).catch(() => undefined);
  });
  return bucket;
}

function kvPlace(): Place {
  const bucket = kvBucket();
  return { open: async (key) => track(await KvCredentialsStore.open(nats, { key, bucket })) };
}

function track<T extends CredentialsStore>(store: T): T {
  cleanups.push(() => store.close());
  return store;
}

describe.each([
  ['SQLite', sqlitePlace],
  ['JetStream KV', kvPlace],
] as const)('a credentials store on %s', (_backend, place) => {
  it('round-trips creds and Signal keys through a fresh store, Buffers and ids with : @ / included', async () => {
    const where = place();
    const key = randomBytes(32);
    const creds = initAuthCreds();
    const first = new SessionCredentials('ses_1', await where.open(key));
    await first.saveCreds(creds);
    await first.keys.set({
      'pre-key': { '1': creds.signedPreKey.keyPair },
      session: { '15551234567:3@s.whatsapp.net': Buffer.from('signal-session') },
      'sender-key': { '120363@g.us::15551234567:3@s.whatsapp.net/0': Buffer.from('sender') },
    });

    const reopened = new SessionCredentials('ses_1', await where.open(key));
    const loaded = await reopened.loadCreds();
    expect(Buffer.from(loaded!.noiseKey.private).equals(Buffer.from(creds.noiseKey.private))).toBe(true);
    const { '1': preKey } = await reopened.keys.get('pre-key', ['1', '2']);
    expect(Buffer.isBuffer(preKey?.public)).toBe(true);
    expect(Buffer.from(preKey!.public).equals(Buffer.from(creds.signedPreKey.keyPair.public))).toBe(true);
    expect(await reopened.keys.get('session', ['15551234567:3@s.whatsapp.net'])).toEqual({ '15551234567:3@s.whatsapp.net': Buffer.from('signal-session') });
    expect(await reopened.keys.get('sender-key', ['120363@g.us::15551234567:3@s.whatsapp.net/0'])).toEqual({
      '120363@g.us::15551234567:3@s.whatsapp.net/0': Buffer.from('sender'),
    });
  });

  it("round-trips Baileys 7's new key types (LID mapping, device lists, trusted-contact tokens, identity keys), sealed like the rest", async () => {
    const where = place();
    const key = randomBytes(32);
    const token = { token: Buffer.from('tc-token-bytes'), timestamp: '1764000000', senderTimestamp: 1764000001 };
    const identity = Uint8Array.from(randomBytes(33));
    const first = new SessionCredentials('ses_1', await where.open(key));
    await first.keys.set({
      'lid-mapping': { '15551234567': '915551234567', '915551234567_reverse': '15551234567' },
      'device-list': { '915551234567': ['0', '3'] },
      tctoken: { '915551234567@lid': token },
      'identity-key': { '915551234567.0': identity },
    });

    const reopened = new SessionCredentials('ses_1', await where.open(key));
    expect(await reopened.keys.get('lid-mapping', ['15551234567', '915551234567_reverse'])).toEqual({ '15551234567': '915551234567', '915551234567_reverse': '15551234567' });
    expect(await reopened.keys.get('device-list', ['915551234567'])).toEqual({ '915551234567': ['0', '3'] });
    const { '915551234567@lid': tc } = await reopened.keys.get('tctoken', ['915551234567@lid']);
    expect(Buffer.isBuffer(tc?.token) && tc.token.equals(token.token)).toBe(true);
    expect(tc).toMatchObject({ timestamp: token.timestamp, senderTimestamp: token.senderTimestamp });
    const { '915551234567.0': stored } = await reopened.keys.get('identity-key', ['915551234567.0']);
    expect(Buffer.from(stored!).equals(Buffer.from(identity))).toBe(true);
    // Sealed: under another key the store gives none of them back.
    let other: CredentialsStore | undefined;
    try {
      other = await where.open(randomBytes(32));
    } catch (error) {
      expect(String(error)).toMatch(/another key|SWITCHBOARD_SECRET_KEY/);
    }
    if (other) await expect(other.read('ses_1', 'lid-mapping', '15551234567')).rejects.toThrow(SecretDecryptionError);
  });

  it('keeps ids apart that differ only in characters a key alphabet lacks', async () => {
    const store = await place().open(randomBytes(32));
    const ids = ['a:b', 'a_b', 'a.b', 'a/b', 'a@b', 'a=b', 'YTpi', ''];
    await store.write('ses_1', ids.map((id) => ({ kind: 'session', keyId: id, value: Buffer.from(`value of ${id}`) })));
    const read = await Promise.all(ids.map((id) => store.read('ses_1', 'session', id)));
    expect(read.map((value) => value?.toString())).toEqual(ids.map((id) => `value of ${id}`));
    expect(await store.read('ses_1', CREDS_KIND, '')).toBeUndefined();
    expect(await store.rowCount('ses_1')).toBe(ids.length);
  });

  it('refuses to give values back under another key, saying which setting is wrong', async () => {
    const where = place();
    await new SessionCredentials('ses_1', await where.open(randomBytes(32))).saveCreds(initAuthCreds());
    const underAnotherKey = async () => new SessionCredentials('ses_1', await where.open(randomBytes(32))).loadCreds();
    await expect(underAnotherKey()).rejects.toThrow(SecretDecryptionError);
    await expect(underAnotherKey()).rejects.toThrow(/wrong SWITCHBOARD_SECRET_KEY/);
  });

  it('wipe removes every row of that session and only that session', async () => {
    const store = await place().open(randomBytes(32));
    const doomed = new SessionCredentials('ses_doomed', store);
    const kept = new SessionCredentials('ses_kept', store);
    for (const session of [doomed, kept]) {
      await session.saveCreds(initAuthCreds());
      await session.keys.set({ session: { a: Buffer.from('x') }, 'pre-key': { '1': initAuthCreds().noiseKey } });
    }
    await doomed.keys.set({ session: { gone: null } });
    await doomed.wipe();
    expect(await store.rowCount('ses_doomed')).toBe(0);
    expect(await doomed.loadCreds()).toBeUndefined();
    expect(await doomed.keys.get('session', ['a'])).toEqual({});
    expect(await new SessionCredentials('ses_doomed', store).keys.get('pre-key', ['1'])).toEqual({});
    expect(await store.rowCount('ses_kept')).toBe(3);
    expect(await new SessionCredentials('ses_kept', store).keys.get('session', ['a'])).toEqual({ a: Buffer.from('x') });
  });

  it('deletes a key written as null', async () => {
    const store = await place().open(randomBytes(32));
    const session = new SessionCredentials('ses_1', store);
    await session.keys.set({ session: { a: Buffer.from('x') } });
    await session.keys.set({ session: { a: null } });
    expect(await session.keys.get('session', ['a'])).toEqual({});
    expect(await new SessionCredentials('ses_1', store).keys.get('session', ['a'])).toEqual({});
    expect(await store.rowCount('ses_1')).toBe(0);
  });

  it('keeps LID-held messages for a reopened store, sealed, and forgets them once recorded', async () => {
    const where = place();
    const key = randomBytes(32);
    const held = { key: { remoteJid: '915550009@lid', id: 'HELD1', fromMe: false }, message: { conversation: 'held text' }, messageTimestamp: 1_700_000_000 } as WAMessage;
    const before = new LidSenders(new SessionCredentials('ses_1', await where.open(key)));
    await before.restore(async () => undefined);
    expect(await before.name(held, async () => undefined)).toEqual([]);

    const store = await where.open(key);
    const after = new LidSenders(new SessionCredentials('ses_1', store));
    const released = await after.restore(async (lid) => (lid === '915550009@lid' ? '15550009@s.whatsapp.net' : undefined));
    expect(released).toMatchObject([{ key: { id: 'HELD1', remoteJidAlt: '15550009@s.whatsapp.net' }, message: { conversation: 'held text' } }]);
    after.recorded('HELD1');
    await after.forgetRecorded();
    expect(await store.rowCount('ses_1')).toBe(0);
  });

  it('answers a key just written at once, before the store acknowledged it, and from the store after', async () => {
    const store = await place().open(randomBytes(32));
    const session = new SessionCredentials('ses_1', store);
    const written = session.keys.set({ 'pre-key': { '7': initAuthCreds().signedPreKey.keyPair } });
    const meanwhile = session.keys.get('pre-key', ['7']);
    expect(meanwhile).not.toBeInstanceOf(Promise);
    expect(Object.keys(meanwhile as object)).toEqual(['7']);
    await written;
    // Pre-keys are not cached: this one comes from the store.
    expect(Object.keys(await session.keys.get('pre-key', ['7']))).toEqual(['7']);
  });
});

describe('chat credentials in the JetStream KV bucket', () => {
  it('keeps only sealed values: neither the creds JSON nor key bytes appear in the raw entries', async () => {
    const bucket = kvBucket();
    const key = randomBytes(32);
    const store = track(await KvCredentialsStore.open(nats, { key, bucket }));
    const session = new SessionCredentials('ses_1', store);
    const creds = initAuthCreds();
    const marker = 'PLAINTEXT-MARKER-7c1e';
    creds.advSecretKey = marker;
    await session.saveCreds(creds);
    await session.keys.set({ session: { '15551234567:3@s.whatsapp.net': Buffer.from(`signal-session-${marker}`) } });

    const raw = await new Kvm(nats).open(bucket);
    const keys: string[] = [];
    for await (const name of await raw.keys('ses_1.>')) keys.push(name);
    expect(keys).toHaveLength(2);
    for (const name of keys) expect(name).toMatch(/^ses_1\.[-\w=]+\.[-\w=]+$/);
    const values = await Promise.all(keys.map(async (name) => Buffer.from((await raw.get(name))!.value)));
    const atRest = Buffer.concat(values);
    expect(atRest.includes(Buffer.from(marker))).toBe(false);
    expect(atRest.includes(Buffer.from('advSecretKey'))).toBe(false);
    expect(atRest.includes(Buffer.from(creds.noiseKey.private).subarray(0, 16))).toBe(false);

    // Sealed with the configured key, bound to the row: another key does not open it.
    const sealedCreds = Buffer.from((await raw.get(keys.find((name) => name.startsWith('ses_1.kY3JlZHM.'))!))!.value);
    expect(new SecretCipher(key).open(sealedCreds, credentialsAssociatedData('ses_1', CREDS_KIND, '')).toString()).toContain(marker);
    expect(() => new SecretCipher(randomBytes(32)).open(sealedCreds, credentialsAssociatedData('ses_1', CREDS_KIND, ''))).toThrow(SecretDecryptionError);
    await expect(KvCredentialsStore.open(nats, { key: randomBytes(32), bucket })).rejects.toThrow(/sealed with another key/);
  });

  it('is one store for two replicas: each sees what the other wrote and wiped', async () => {
    const bucket = kvBucket();
    const key = randomBytes(32);
    const other = await connect({ servers: NATS_URL, name: 'credentials-store-test-replica-2' });
    cleanups.push(() => other.close());
    // Replicas starting together on a bucket nobody made yet agree on it (and on its key check).
    const [first, second] = await Promise.all([KvCredentialsStore.open(nats, { key, bucket }), KvCredentialsStore.open(other, { key, bucket })]);
    const creds = initAuthCreds();
    await new SessionCredentials('ses_moving', first).saveCreds(creds);
    await new SessionCredentials('ses_moving', first).keys.set({ session: { '15551234567:3@s.whatsapp.net': Buffer.from('chain') } });

    const taken = new SessionCredentials('ses_moving', second);
    expect((await taken.loadCreds())?.registrationId).toBe(creds.registrationId);
    expect(await taken.keys.get('session', ['15551234567:3@s.whatsapp.net'])).toEqual({ '15551234567:3@s.whatsapp.net': Buffer.from('chain') });

    await taken.wipe();
    expect(await first.rowCount('ses_moving')).toBe(0);
    expect(await new SessionCredentials('ses_moving', first).loadCreds()).toBeUndefined();
  });
});
