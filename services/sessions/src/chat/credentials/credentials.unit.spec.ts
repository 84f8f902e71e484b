import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initAuthCreds } from '@whiskeysockets/baileys';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidSecretKeyError, loadOrCreateSecretKey, parseSecretKey, resolveSecretKey, SecretDecryptionError } from '@switchboard/service-kit';
import { pruneClosedSessions } from './prune-closed-sessions.js';
import { SessionCredentials } from './session-credentials.js';
import { SqliteCredentialsStore } from './sqlite-credentials-store.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-creds-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Every byte SQLite wrote for this database, WAL included. */
function filesOf(dir: string): Buffer {
  return Buffer.concat(readdirSync(dir).map((name) => readFileSync(join(dir, name))));
}

describe('chat credentials at rest', () => {
  it('stores no plaintext: neither the creds JSON nor key bytes appear in the SQLite files', () => {
    const dir = tempDir();
    const store = new SqliteCredentialsStore({ path: join(dir, 'sessions.db'), key: randomBytes(32) });
    const session = new SessionCredentials('ses_1', store);
    const creds = initAuthCreds();
    const marker = 'PLAINTEXT-MARKER-7c1e';
    creds.advSecretKey = marker;
    session.saveCreds(creds);
    const sessionBytes = Buffer.from(`signal-session-${marker}`);
    session.keys.set({ session: { '15551234567.0': sessionBytes } });

    const onDisk = filesOf(dir);
    expect(onDisk.includes(Buffer.from(marker))).toBe(false);
    expect(onDisk.includes(Buffer.from(creds.noiseKey.private).subarray(0, 16))).toBe(false);
    expect(onDisk.includes(Buffer.from('advSecretKey'))).toBe(false);
    expect(session.loadCreds()?.advSecretKey).toBe(marker);
    store.close();
  });

  it('round-trips creds and Signal keys through a fresh store, Buffers included', async () => {
    const dir = tempDir();
    const key = randomBytes(32);
    const first = new SqliteCredentialsStore({ path: join(dir, 'sessions.db'), key });
    const creds = initAuthCreds();
    new SessionCredentials('ses_1', first).saveCreds(creds);
    await new SessionCredentials('ses_1', first).keys.set({ 'pre-key': { '1': creds.signedPreKey.keyPair } });
    first.close();

    const reopened = new SessionCredentials('ses_1', new SqliteCredentialsStore({ path: join(dir, 'sessions.db'), key }));
    const loaded = reopened.loadCreds();
    expect(Buffer.from(loaded!.noiseKey.private).equals(Buffer.from(creds.noiseKey.private))).toBe(true);
    const { '1': preKey } = await reopened.keys.get('pre-key', ['1', '2']);
    expect(Buffer.isBuffer(preKey?.public)).toBe(true);
    expect(Buffer.from(preKey!.public).equals(Buffer.from(creds.signedPreKey.keyPair.public))).toBe(true);
  });

  it('refuses to decrypt with another key, saying which setting is wrong', () => {
    const dir = tempDir();
    const path = join(dir, 'sessions.db');
    const writer = new SqliteCredentialsStore({ path, key: randomBytes(32) });
    new SessionCredentials('ses_1', writer).saveCreds(initAuthCreds());
    writer.close();

    const reader = new SessionCredentials('ses_1', new SqliteCredentialsStore({ path, key: randomBytes(32) }));
    expect(() => reader.loadCreds()).toThrow(SecretDecryptionError);
    expect(() => reader.loadCreds()).toThrow(/wrong SWITCHBOARD_SECRET_KEY/);
  });

  it('wipe removes every row of that session and only that session', async () => {
    const store = new SqliteCredentialsStore({ path: join(tempDir(), 'sessions.db'), key: randomBytes(32) });
    const doomed = new SessionCredentials('ses_doomed', store);
    const kept = new SessionCredentials('ses_kept', store);
    for (const session of [doomed, kept]) {
      session.saveCreds(initAuthCreds());
      await session.keys.set({ session: { a: Buffer.from('x') }, 'pre-key': { '1': initAuthCreds().noiseKey } });
    }
    doomed.wipe();
    expect(store.rowCount('ses_doomed')).toBe(0);
    expect(doomed.loadCreds()).toBeUndefined();
    expect(await doomed.keys.get('session', ['a'])).toEqual({});
    expect(store.rowCount('ses_kept')).toBe(3);
  });

  it('deletes a key written as null', async () => {
    const store = new SqliteCredentialsStore({ path: ':memory:', key: randomBytes(32) });
    const session = new SessionCredentials('ses_1', store);
    await session.keys.set({ session: { a: Buffer.from('x') } });
    await session.keys.set({ session: { a: null } });
    expect(await session.keys.get('session', ['a'])).toEqual({});
    expect(store.rowCount('ses_1')).toBe(0);
  });
});

describe('secret key', () => {
  it('accepts 32 bytes as hex or base64 and rejects anything else', () => {
    const key = randomBytes(32);
    expect(parseSecretKey(key.toString('hex')).equals(key)).toBe(true);
    expect(parseSecretKey(key.toString('base64')).equals(key)).toBe(true);
    expect(() => parseSecretKey(randomBytes(16).toString('hex'))).toThrow(InvalidSecretKeyError);
    expect(() => parseSecretKey('not a key!')).toThrow(InvalidSecretKeyError);
  });

  it('generates the embedded key once, readable by the owner only', () => {
    const dir = tempDir();
    const key = loadOrCreateSecretKey(dir);
    expect(key).toHaveLength(32);
    expect(loadOrCreateSecretKey(dir).equals(key)).toBe(true);
    expect(statSync(join(dir, 'secret-key')).mode & 0o777).toBe(0o600);
  });

  it('requires the configured key outside the embedded mode', () => {
    expect(() => resolveSecretKey({ configured: undefined, dataDir: tempDir(), embedded: false })).toThrow(/required/);
  });
});

describe('Signal session records', () => {
  const session = (closed: number) => ({ indexInfo: { closed }, chains: {} });

  it('keep the open session and only the newest closed ones', () => {
    const record = { version: 'v1', _sessions: { open: session(-1), c1: session(1), c2: session(2), c3: session(3), c4: session(4), c5: session(5), c6: session(6) } };
    expect(Object.keys(pruneClosedSessions(record, 4)._sessions).sort()).toEqual(['c3', 'c4', 'c5', 'c6', 'open']);
  });

  it('leave anything that is not a session record alone', () => {
    const bytes = Buffer.from('x');
    expect(pruneClosedSessions(bytes)).toBe(bytes);
  });
});
