import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initAuthCreds } from '@whiskeysockets/baileys';
import { afterEach, describe, expect, it } from 'vitest';
import { InvalidSecretKeyError, loadOrCreateSecretKey, parseSecretKey, resolveSecretKey } from '@switchboard/service-kit';
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

// What every credentials store does (round trip, wrong key, wipe, deletes) is in credentials-store.spec.ts.
describe('chat credentials at rest in SQLite', () => {
  it('stores no plaintext: neither the creds JSON nor key bytes appear in the SQLite files', async () => {
    const dir = tempDir();
    const store = new SqliteCredentialsStore({ path: join(dir, 'sessions.db'), key: randomBytes(32) });
    const session = new SessionCredentials('ses_1', store);
    const creds = initAuthCreds();
    const marker = 'PLAINTEXT-MARKER-7c1e';
    creds.advSecretKey = marker;
    await session.saveCreds(creds);
    const sessionBytes = Buffer.from(`signal-session-${marker}`);
    await session.keys.set({ session: { '15551234567.0': sessionBytes } });

    const onDisk = filesOf(dir);
    expect(onDisk.includes(Buffer.from(marker))).toBe(false);
    expect(onDisk.includes(Buffer.from(creds.noiseKey.private).subarray(0, 16))).toBe(false);
    expect(onDisk.includes(Buffer.from('advSecretKey'))).toBe(false);
    expect((await session.loadCreds())?.advSecretKey).toBe(marker);
    await store.close();
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

describe('credentials of a session let go (a handover)', () => {
  /** A store whose writes each land 100 ms after they were asked for. */
  function slowStore(): SqliteCredentialsStore {
    const store = new SqliteCredentialsStore({ path: join(tempDir(), 'sessions.db'), key: randomBytes(32) });
    const write = store.write.bind(store);
    store.write = async (sessionId, rows) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return write(sessionId, rows);
    };
    return store;
  }

  it('writes the creds saves asked for before the fence, and nothing its old socket asks for after it', async () => {
    const store = slowStore();
    const session = new SessionCredentials('ses_1', store);
    const creds = initAuthCreds();
    const old = session.authStateUntilWipe(creds);
    creds.nextPreKeyId = 1;
    old.saveCreds();
    creds.nextPreKeyId = 2;
    old.saveCreds();
    await session.fence(5_000);
    // Both saves asked for before the fence are in: the latest state is stored.
    expect((await session.loadCreds())?.nextPreKeyId).toBe(2);

    creds.nextPreKeyId = 3;
    old.saveCreds();
    await old.keys.set({ session: { '15551234567.0': Buffer.from('late ratchet') } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await session.loadCreds())?.nextPreKeyId).toBe(2);
    expect(await store.read('ses_1', 'session', '15551234567.0')).toBeUndefined();
    await store.close();
  });

  it('lets a socket handed out while the fence waits write on (started again meanwhile)', async () => {
    const store = slowStore();
    const session = new SessionCredentials('ses_1', store);
    const old = session.authStateUntilWipe({ ...initAuthCreds(), nextPreKeyId: 1 });
    old.saveCreds();
    const fencing = session.fence(5_000);
    const next = session.authStateUntilWipe({ ...initAuthCreds(), nextPreKeyId: 4 });
    next.saveCreds();
    await next.keys.set({ session: { '15551234567.0': Buffer.from('same process, new socket') } });
    await fencing;
    await expect.poll(async () => (await session.loadCreds())?.nextPreKeyId).toBe(4);
    expect(await store.read('ses_1', 'session', '15551234567.0')).toBeDefined();
    await store.close();
  });
});
