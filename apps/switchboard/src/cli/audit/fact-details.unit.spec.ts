import { describe, expect, it } from 'vitest';
import { factDetails, shownData } from './fact-details.js';

describe('the fields a history line shows', () => {
  it('names what matters of a fact and cuts contents to 40 characters', () => {
    expect(factDetails('MessageAccepted', {
      to: '15551234567', sessionId: 'ses_1', usageDay: '2026-11-21', quotedMessageId: null,
      content: { type: 'media', media: { mediaType: 'image', mimetype: 'image/png', size: 68, sha256: 'ab'.repeat(32) }, caption: 'the receipt of the order you placed on Monday' },
    })).toBe('to 15551234567, session ses_1, image image/png 68 bytes, sha256 abababababab…, caption "the receipt of the order you placed on M…", usage day 2026-11-21');
    expect(factDetails('MessageFailed', { code: 'RECIPIENT_NOT_ON_CHAT_NETWORK', message: 'not on the network', refundable: true }))
      .toBe('RECIPIENT_NOT_ON_CHAT_NETWORK: "not on the network", unit to refund');
    expect(factDetails('PlanChanged', { from: 'free', to: 'basic' })).toBe('plan free -> basic');
  });

  it('never shows what stands for a secret, also of a type it does not know', () => {
    const issued = { accountId: 'acc_1', keyId: 'key_1', keyHash: 'a'.repeat(64), scopes: ['admin'] };
    expect(factDetails('ApiKeyIssued', issued)).toBe('key key_1, scopes admin');
    expect(shownData(issued)).toEqual({ accountId: 'acc_1', keyId: 'key_1', scopes: ['admin'] });
    expect(factDetails('SomethingNew', { keyHash: 'a'.repeat(64), secretFingerprint: '0123456789abcdef', count: 3, note: 'hello' })).toBe('count 3, note "hello"');
  });
});
