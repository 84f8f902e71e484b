import { describe, expect, it } from 'vitest';
import { isStatusAdvance } from './status.js';
import { classifyMedia, isBase64 } from './media.js';

describe('media source forms', () => {
  it.each([
    ['https://example.com/a.jpg', { kind: 'url', url: 'https://example.com/a.jpg' }],
    ['HTTP://example.com/a.jpg', { kind: 'url', url: 'HTTP://example.com/a.jpg' }],
    ['aGVsbG8=', { kind: 'base64', data: 'aGVsbG8=', mimetype: null }],
    ['data:image/JPEG;base64,aGVsbG8=', { kind: 'base64', data: 'aGVsbG8=', mimetype: 'image/jpeg' }],
    ['data:application/pdf;name=a.pdf;base64,QQ==', { kind: 'base64', data: 'QQ==', mimetype: 'application/pdf' }],
  ])('classifies %s', (value, expected) => {
    expect(classifyMedia(value)).toEqual(expected);
  });

  it.each(['', 'http://', 'ftp://example.com/a', 'file:///etc/passwd', 'hello', 'aGVsbG8', 'a===', 'data:image/png,abc', 'data:;base64,QQ==', 'data:image/png;base64,'])(
    'rejects %j',
    (value) => {
      expect(classifyMedia(value)).toBeNull();
    },
  );

  it('checks multi-megabyte base64 without overflowing the regex stack', () => {
    const big = 'QUJD'.repeat(5_000_000);
    expect(isBase64(big)).toBe(true);
    expect(isBase64(`${big}!`)).toBe(false);
    expect(classifyMedia(`data:video/mp4;base64,${big}`)?.kind).toBe('base64');
  });
});

describe('message status order', () => {
  it.each([
    ['pending', 'sent', true],
    ['sent', 'delivered', true],
    ['sent', 'read', true],
    ['delivered', 'read', true],
    ['read', 'delivered', false],
    ['delivered', 'delivered', false],
    ['pending', 'failed', true],
    ['sent', 'failed', true],
    ['delivered', 'failed', false],
    ['failed', 'sent', false],
  ] as const)('%s -> %s is %s', (from, to, expected) => {
    expect(isStatusAdvance(from, to)).toBe(expected);
  });
});
