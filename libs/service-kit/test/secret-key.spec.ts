import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEY_CHECK_FILE, SECRET_KEY_FILE, SecretKeyMismatchError, resolveSecretKey } from '../src/secrets/secret-key.js';

const hexKey = () => randomBytes(32).toString('hex');

describe('the secret key of a data dir', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-key-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is refused when the dir was started with another key, and accepted with its own', () => {
    const first = hexKey();
    resolveSecretKey({ configured: first, dataDir: dir, embedded: false });
    expect(statSync(join(dir, KEY_CHECK_FILE)).mode & 0o777).toBe(0o600);
    expect(() => resolveSecretKey({ configured: hexKey(), dataDir: dir, embedded: false })).toThrow(SecretKeyMismatchError);
    expect(() => resolveSecretKey({ configured: hexKey(), dataDir: dir, embedded: false })).toThrow(
      `SWITCHBOARD_SECRET_KEY: ${dir} holds secrets sealed with another key; start with the key it was made with, or give this key its own SWITCHBOARD_DATA_DIR`,
    );
    expect(resolveSecretKey({ configured: first, dataDir: dir, embedded: false }).toString('hex')).toBe(first);
  });

  it('refuses a configured key for a dir whose key npm start generated (a dir from before the check)', () => {
    const generated = resolveSecretKey({ configured: undefined, dataDir: dir, embedded: true });
    rmSync(join(dir, KEY_CHECK_FILE));
    expect(() => resolveSecretKey({ configured: hexKey(), dataDir: dir, embedded: true })).toThrow(SecretKeyMismatchError);
    expect(resolveSecretKey({ configured: generated.toString('hex'), dataDir: dir, embedded: false }).equals(generated)).toBe(true);
  });

  it('takes a dir from before the check as it is when nothing says otherwise (no generated key)', () => {
    writeFileSync(join(dir, 'unrelated'), 'x');
    const key = hexKey();
    expect(resolveSecretKey({ configured: key, dataDir: dir, embedded: false }).toString('hex')).toBe(key);
    expect(statSync(join(dir, SECRET_KEY_FILE), { throwIfNoEntry: false })).toBeUndefined();
  });
});
