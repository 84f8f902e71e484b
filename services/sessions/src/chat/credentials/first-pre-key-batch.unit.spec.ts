import { INITIAL_PREKEY_COUNT, generateOrGetPreKeys } from '@whiskeysockets/baileys';
import { describe, expect, it } from 'vitest';
import { FIRST_PRE_KEY_BATCH, isNeverGeneratedPreKey, newDeviceCreds } from './first-pre-key-batch.js';

describe('the first pre-key batch of a new device', () => {
  it("makes Baileys' first upload of 812 generate 50 pairs, numbered after the ids it counts as generated", () => {
    const creds = newDeviceCreds();
    const { newPreKeys, lastPreKeyId } = generateOrGetPreKeys(creds, INITIAL_PREKEY_COUNT);
    const ids = Object.keys(newPreKeys).map(Number);
    expect(ids).toHaveLength(FIRST_PRE_KEY_BATCH);
    expect(ids.every((id) => !isNeverGeneratedPreKey(creds, String(id)))).toBe(true);
    expect(lastPreKeyId).toBe(creds.firstUnuploadedPreKeyId + INITIAL_PREKEY_COUNT - 1);
  });

  it('counts the ids below the batch as never generated until the upload moves the counters', () => {
    const creds = newDeviceCreds();
    const first = creds.firstUnuploadedPreKeyId;
    expect([first, creds.nextPreKeyId - 1].map((id) => isNeverGeneratedPreKey(creds, String(id)))).toEqual([true, true]);
    expect(isNeverGeneratedPreKey(creds, String(creds.nextPreKeyId))).toBe(false);
    const uploaded = { ...creds, nextPreKeyId: first + INITIAL_PREKEY_COUNT, firstUnuploadedPreKeyId: first + INITIAL_PREKEY_COUNT };
    expect(isNeverGeneratedPreKey(uploaded, String(first))).toBe(false);
  });
});
