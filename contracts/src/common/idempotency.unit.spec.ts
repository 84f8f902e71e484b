import { describe, expect, it } from 'vitest';
import { EXAMPLE_IDS as ID } from '../examples/ids.js';
import { canonicalJson, idempotencyKeyHash, idempotencyRequestHash, idempotencyStream, sha256Hex } from './idempotency.js';

describe('shared Idempotency-Key rules', () => {
  it('hashes a key to the lower-case hex SHA-256 that names its stream', () => {
    // FIPS 180-2 test vector: SHA-256("abc").
    const keyHash = idempotencyKeyHash('abc');
    expect(keyHash).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(idempotencyStream(ID.account, keyHash)).toBe(`idempotency-${ID.account}-${keyHash}`);
  });

  it('gives the same request hash however the client ordered the body, another one for another body or endpoint', () => {
    const body = { name: 'Support', tags: ['a', 'b'] };
    expect(idempotencyRequestHash('createSession', { tags: ['a', 'b'], name: 'Support' })).toBe(idempotencyRequestHash('createSession', body));
    expect(idempotencyRequestHash('createSession', { ...body, name: 'Sales' })).not.toBe(idempotencyRequestHash('createSession', body));
    expect(idempotencyRequestHash('text', body)).not.toBe(idempotencyRequestHash('createSession', body));
    expect(idempotencyRequestHash('createSession', body)).toBe(sha256Hex(canonicalJson({ kind: 'createSession', body })));
  });
});
