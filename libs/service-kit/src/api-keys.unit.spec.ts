import { describe, expect, it } from 'vitest';
import { ApiKeyHash, MintedApiKey } from '@switchboard/contracts';
import { hashApiKey, mintApiKey, parseApiKeySecret, sameKeyHash } from './api-keys.js';

describe('API keys', () => {
  it('mints sbk_ keys with 256 random bits, different every time', () => {
    const keys = Array.from({ length: 50 }, () => mintApiKey());
    for (const key of keys) expect(MintedApiKey.safeParse(key).success).toBe(true);
    expect(new Set(keys).size).toBe(50);
    expect(Buffer.from(keys[0]!.slice(4), 'base64url')).toHaveLength(32);
  });

  it('hashes to the lower-case hex SHA-256 of the UTF-8 key', () => {
    // sha256("abc"), the FIPS 180-2 test vector.
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(ApiKeyHash.safeParse(hashApiKey(mintApiKey())).success).toBe(true);
  });

  it('refuses a short operator key naming the variable but not the value', () => {
    expect(() => parseApiKeySecret('short-key', 'SWITCHBOARD_BOOTSTRAP_API_KEY')).toThrow(
      /^SWITCHBOARD_BOOTSTRAP_API_KEY is not a usable API key: API key is too short/,
    );
    expect(() => parseApiKeySecret('short-key', 'X')).not.toThrow(/short-key/);
    expect(parseApiKeySecret('operator-chosen-key-1234', 'X')).toBe('operator-chosen-key-1234');
  });

  it('compares hashes in constant time', () => {
    const hash = hashApiKey('k');
    expect(sameKeyHash(hash, hashApiKey('k'))).toBe(true);
    expect(sameKeyHash(hash, hashApiKey('j'))).toBe(false);
    expect(sameKeyHash(hash, hash.slice(1))).toBe(false);
  });
});
