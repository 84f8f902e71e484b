import { CREATE_SESSION_KIND, idempotencyKeyHash, idempotencyRequestHash } from '@switchboard/contracts';
import { describe, expect, it } from 'vitest';
import { idempotencyOf } from './idempotency.js';

const withKey = (key: string | string[]) => ({ headers: { 'idempotency-key': key } });

describe('idempotencyOf: the Idempotency-Key header', () => {
  it('is null without the header', () => {
    expect(idempotencyOf({ headers: {} }, { name: 'x' }, 'text')).toBeNull();
  });

  it('hashes the key and the canonical body: field order does not matter, the endpoint kind does', () => {
    const a = idempotencyOf(withKey('order-1'), { name: 'Support', b: [1, 2] }, CREATE_SESSION_KIND);
    const b = idempotencyOf(withKey('order-1'), { b: [1, 2], name: 'Support' }, CREATE_SESSION_KIND);
    expect(a).toEqual({ keyHash: idempotencyKeyHash('order-1'), requestHash: idempotencyRequestHash(CREATE_SESSION_KIND, { name: 'Support', b: [1, 2] }) });
    expect(a).not.toHaveProperty('key');
    expect(b?.requestHash).toBe(a?.requestHash);
    expect(idempotencyOf(withKey('order-1'), { name: 'Sales' }, CREATE_SESSION_KIND)?.requestHash).not.toBe(a?.requestHash);
    expect(idempotencyOf(withKey('order-1'), { name: 'Support', b: [1, 2] }, 'text')?.requestHash).not.toBe(a?.requestHash);
  });

  it.each([
    ['an empty key', ''],
    ['a key with a space', 'has space'],
    ['a key over 255 characters', 'k'.repeat(256)],
    ['a non-ASCII key', 'clé'],
  ])('answers 400 VALIDATION_ERROR at headers.idempotency-key for %s', (_what, key) => {
    expect(() => idempotencyOf(withKey(key), {}, 'text')).toThrow(
      expect.objectContaining({ code: 'VALIDATION_ERROR', details: [{ path: 'headers.idempotency-key', message: expect.stringMatching(/^Idempotency-Key /) }] }),
    );
  });

  it('answers 400 for a repeated header (two keys for one request)', () => {
    expect(() => idempotencyOf(withKey(['a', 'b']), {}, 'text')).toThrow(
      expect.objectContaining({ details: [{ path: 'headers.idempotency-key', message: 'Idempotency-Key send one Idempotency-Key header' }] }),
    );
  });
});
