import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { SecretDecryptionError } from '@switchboard/service-kit';
import { ContentKeys, ERASED } from './content-keys.js';
import { SqliteDataKeyStore } from './sqlite-data-key-store.js';

const ACC = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const MSG = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K';
const OTHER_MSG = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9M';
const secret = randomBytes(32);
const dirs: string[] = [];

function keyStoreFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-data-keys-'));
  dirs.push(dir);
  return join(dir, 'data-keys.sqlite');
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('per-account data keys (crypto-shredding)', () => {
  it('seals a content that opens for its own message only, with the type left readable', async () => {
    const keys = new ContentKeys(new SqliteDataKeyStore(':memory:'), secret);
    await keys.sealingKey(ACC);
    const sealed = keys.seal(ACC, MSG, { type: 'text', text: 'Your order #42 has shipped' });
    expect(sealed).toEqual({ type: 'text', keyId: expect.stringMatching(/^dk_[0-9A-Z]{26}$/), sealed: expect.any(String) });
    expect(Buffer.from(sealed.sealed, 'base64').toString('latin1')).not.toContain('order #42');
    expect(keys.open(ACC, MSG, sealed)).toEqual({ type: 'text', text: 'Your order #42 has shipped' });
    // Copied into another message's record, it does not open.
    expect(() => keys.open(ACC, OTHER_MSG, sealed)).toThrow(SecretDecryptionError);
  });

  it('reads contents as erased once their key is destroyed, and seals later ones under a new key', async () => {
    const store = new SqliteDataKeyStore(':memory:');
    const keys = new ContentKeys(store, secret);
    await keys.sealingKey(ACC);
    const before = keys.seal(ACC, MSG, { type: 'text', text: 'before' });
    expect(await keys.erased(ACC, [before.keyId])).toBe(1);
    expect(keys.open(ACC, MSG, before)).toBe(ERASED);
    // Another process that never saw the key learns from the store that it is gone.
    const elsewhere = new ContentKeys(store, secret);
    await elsewhere.prepare([{ accountId: ACC, keyId: before.keyId }]);
    expect(elsewhere.open(ACC, MSG, before)).toBe(ERASED);
    await keys.sealingKey(ACC);
    const after = keys.seal(ACC, OTHER_MSG, { type: 'text', text: 'after' });
    expect(after.keyId > before.keyId).toBe(true);
    await elsewhere.prepare([{ accountId: ACC, keyId: after.keyId }]);
    expect(elsewhere.open(ACC, OTHER_MSG, after)).toEqual({ type: 'text', text: 'after' });
    expect(elsewhere.open(ACC, MSG, before)).toBe(ERASED);
  });

  it('stops using a key an erasure named even while the store still holds it (another process destroys it)', async () => {
    const store = new SqliteDataKeyStore(':memory:');
    const writer = new ContentKeys(store, secret);
    await writer.sealingKey(ACC);
    const sealed = writer.seal(ACC, MSG, { type: 'text', text: 'hi' });
    const reader = new ContentKeys(store, secret);
    await reader.prepare([{ accountId: ACC, keyId: sealed.keyId }]);
    expect(reader.open(ACC, MSG, sealed)).toEqual({ type: 'text', text: 'hi' });
    // The fact reaches the reader first; it destroys the key itself.
    expect(await reader.erased(ACC, [sealed.keyId])).toBe(1);
    expect(reader.open(ACC, MSG, sealed)).toBe(ERASED);
    expect(await writer.erased(ACC, [sealed.keyId])).toBe(0);
    expect(await store.current(ACC)).toBeUndefined();
  });

  it('leaves no copy of a destroyed key in the key store\'s files', async () => {
    const file = keyStoreFile();
    const store = new SqliteDataKeyStore(file);
    const keys = new ContentKeys(store, secret);
    await keys.sealingKey(ACC);
    const stored = (await store.current(ACC))!;
    const wrapped = Buffer.from(stored.wrapped);
    const onDisk = () => readdirSync(join(file, '..')).map((name) => readFileSync(join(file, '..', name))).some((bytes) => bytes.includes(wrapped));
    expect(onDisk()).toBe(true);
    await keys.erased(ACC, [stored.keyId]);
    expect(onDisk()).toBe(false);
    await store.close();
  });
});
