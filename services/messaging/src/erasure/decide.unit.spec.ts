import { describe, expect, it } from 'vitest';
import { NEVER_ERASED, decideErasure, evolveErasure } from './decide.js';
import type { AccountContents, EraseContents } from './decide.js';

const ACC = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const K1 = 'dk_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const K2 = 'dk_01JD9Z5W3X4Y5Z6A7B8C9D0E1F';
const T0 = new Date('2026-11-21T10:00:00.000Z');
const T1 = new Date('2026-11-22T10:00:00.000Z');
const erase = (liveKeyIds: string[], now = T0): EraseContents => ({ type: 'EraseContents', accountId: ACC, liveKeyIds, now });
const after = (state: AccountContents, command: EraseContents) => decideErasure(command, state).reduce(evolveErasure, state);

describe('erasing an account\'s message contents', () => {
  it('records the erasure with the keys to destroy', () => {
    expect(decideErasure(erase([K1]), NEVER_ERASED)).toEqual([{ type: 'MessageContentsErased', version: 1, data: { accountId: ACC, keyIds: [K1], erasedAt: T0.toISOString() } }]);
  });

  it('records a first erasure without any key too: contents recorded in plain text before sealing are cleared', () => {
    expect(decideErasure(erase([]), NEVER_ERASED)).toHaveLength(1);
  });

  it('records nothing when repeated: same key (a retry after a crash) or none left', () => {
    const erased = after(NEVER_ERASED, erase([K1]));
    expect(decideErasure(erase([K1], T1), erased)).toEqual([]);
    expect(decideErasure(erase([], T1), erased)).toEqual([]);
    expect(erased).toEqual({ status: 'erased', erasedAt: T0.toISOString(), keyIds: [K1] });
  });

  it('records a new erasure for the key of messages sent since', () => {
    const erased = after(NEVER_ERASED, erase([K1]));
    expect(after(erased, erase([K2], T1))).toEqual({ status: 'erased', erasedAt: T1.toISOString(), keyIds: [K2] });
  });
});
