import type { WAVersion } from '@whiskeysockets/baileys';
import { describe, expect, it } from 'vitest';
import { BUNDLED_WA_WEB_VERSION, defaultVersionLookup, lookUpWaWebVersion, WaWebVersions } from './wa-web-version.js';

const V1: WAVersion = [2, 3000, 1];
const V2: WAVersion = [2, 3000, 2];

/** A lookup answering `answers` in turn (the last one again after that), counting its calls. */
function lookup(...answers: (WAVersion | undefined | Error)[]) {
  const calls: number[] = [];
  const fn = async () => {
    calls.push(calls.length);
    const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fn, calls };
}

describe('the WhatsApp Web version sockets announce', () => {
  it('is looked up once, and is the bundled one when the lookup has no answer, fails, or there is none', async () => {
    const once = lookup(V1);
    const versions = new WaWebVersions(once.fn);
    expect(await Promise.all([versions.current(), versions.current()])).toEqual([V1, V1]);
    expect(once.calls).toHaveLength(1);
    expect(await new WaWebVersions(lookup(undefined).fn).current()).toEqual(BUNDLED_WA_WEB_VERSION);
    expect(await new WaWebVersions(lookup(new Error('offline')).fn).current()).toEqual(BUNDLED_WA_WEB_VERSION);
    expect(await new WaWebVersions(undefined).current()).toEqual(BUNDLED_WA_WEB_VERSION);
  });

  it('is looked up again once for sessions refused together, and a refusal of a replaced version costs no lookup', async () => {
    const moving = lookup(V1, V2);
    const versions = new WaWebVersions(moving.fn);
    await versions.current();
    expect(await Promise.all([versions.refreshed(V1), versions.refreshed(V1), versions.refreshed(V1)])).toEqual([V2, V2, V2]);
    expect(moving.calls).toHaveLength(2);
    expect(await versions.refreshed(V1)).toEqual(V2);
    expect(await versions.current()).toEqual(V2);
    expect(moving.calls).toHaveLength(2);
  });

  it('is looked up again at a later refusal when the last lookup had nothing newer', async () => {
    const stuck = lookup(V1, V1, V2);
    const versions = new WaWebVersions(stuck.fn);
    await versions.current();
    expect(await versions.refreshed(V1)).toEqual(V1);
    expect(await versions.refreshed(V1)).toEqual(V2);
    expect(stuck.calls).toHaveLength(3);
  });

  it('is looked up on the internet only for the real network at its real address', () => {
    expect(defaultVersionLookup({ kind: 'whatsapp' })).toBe(lookUpWaWebVersion);
    expect(defaultVersionLookup({ kind: 'whatsapp', waWebSocketUrl: 'ws://127.0.0.1:9/ws/chat' })).toBeUndefined();
    expect(defaultVersionLookup({ kind: 'emulator', waWebSocketUrl: 'ws://127.0.0.1:9/ws/chat' })).toBeUndefined();
  });
});
