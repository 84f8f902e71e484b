import { describe, expect, it } from 'vitest';
import { EXAMPLE_IDS as ID } from '../examples/ids.js';
import { canonicalJson, idempotencyRequestHash, idempotencyStream } from '../common/idempotency.js';
import { MessagingSubjects } from './subjects.js';

describe('idempotency request identity', () => {
  it('ignores key order at every level, keeps array order and values', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 0 }], c: 'é' } })).toBe('{"a":{"c":"é","d":[2,{"x":0,"y":1}]},"b":1}');
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
    expect(canonicalJson({ a: undefined, b: null })).toBe('{"b":null}');
  });

  it('tells endpoints apart: the same body on another endpoint is another request', () => {
    const body = { sessionId: ID.session, to: '15551234567', text: 'hi' };
    expect(idempotencyRequestHash('text', body)).not.toBe(idempotencyRequestHash('buttons', body));
    expect(idempotencyRequestHash('text', { text: 'hi', to: '15551234567', sessionId: ID.session })).toBe(idempotencyRequestHash('text', body));
  });

  it('names the stream after the account and the hash of the key', () => {
    expect(idempotencyStream(ID.account, 'a'.repeat(64))).toBe(`idempotency-${ID.account}-${'a'.repeat(64)}`);
  });

  it('carries the key hash and the request hash on send commands, never the raw key', () => {
    const body = { sessionId: ID.session, to: '15551234567', text: 'hi' };
    const idempotency = { keyHash: 'e'.repeat(64), requestHash: 'f'.repeat(64) };
    expect(MessagingSubjects.sendText.request.parse({ accountId: ID.account, idempotency, body })).toMatchObject({ idempotency });
    expect(MessagingSubjects.sendText.request.safeParse({ accountId: ID.account, idempotency: { ...idempotency, requestHash: 'not-a-hash' }, body }).success).toBe(false);
    expect(MessagingSubjects.sendText.reply.parse({ messageId: ID.message, status: 'sent', timestamp: '2026-11-21T10:00:00.000Z' })).not.toHaveProperty('usage');
  });
});
