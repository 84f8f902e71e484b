import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONTACT } from './model.js';
import type { LinkedDevice } from './model.js';
import { NetworkJournal, replay } from './network-journal.js';
import type { NetworkChange, NetworkSnapshot } from './network-journal.js';

const device = (phone: string, deviceId = 1): LinkedDevice => ({
  phone,
  lid: `9${phone}`,
  deviceId,
  keyIndex: deviceId,
  noiseKey: 'ab'.repeat(32),
  registrationId: 1234,
  identityKey: 'cd'.repeat(32),
  signedPreKey: { keyId: 1, publicKey: 'ef'.repeat(32), signature: '01'.repeat(64) },
  preKeys: Array.from({ length: 64 }, (_, keyId) => ({ keyId, publicKey: '23'.repeat(32) })),
  preKeyCount: 812,
  linkedAt: '2026-01-01T00:00:00.000Z',
});

const linked = (d: LinkedDevice): NetworkChange => ({ kind: 'device', phone: d.phone, device: d });

/** A journal over `dir` whose live network is whatever the test last folded its changes into. */
const journalIn = (dir: string) => {
  let live: NetworkSnapshot = { devices: [], deviceCounters: {}, contacts: {} };
  const journal = new NetworkJournal(dir, () => live);
  return {
    open: () => (live = journal.open()),
    change: (...changes: NetworkChange[]) => {
      live = replay(live, changes);
      journal.append(changes);
    },
  };
};

const size = (dir: string, file: string): number => statSync(join(dir, file)).size;

describe("the network's devices, counters and contacts on disk", () => {
  let dir: string;
  const freshDir = (): string => (dir = mkdtempSync(join(tmpdir(), 'network-journal-')));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('opens a data directory an older emulator wrote (one network.json) as it was', () => {
    const older: NetworkSnapshot = { devices: [device('15550001111', 2)], deviceCounters: { '15550001111': 2 }, contacts: { '15550002222': DEFAULT_CONTACT } };
    writeFileSync(join(freshDir(), 'network.json'), JSON.stringify(older));
    expect(journalIn(dir).open()).toEqual(older);
  });

  it('comes back after a restart with every change, the last value of each record winning', () => {
    const first = journalIn(freshDir());
    first.open();
    first.change({ kind: 'deviceCounter', phone: '15550001111', lastDeviceId: 1 }, linked(device('15550001111')));
    first.change({ kind: 'contact', phone: '15550002222', settings: { ...DEFAULT_CONTACT, readAfterMs: null } });
    first.change(linked(device('15550003333')), { kind: 'device', phone: '15550003333', device: null });
    first.change({ kind: 'deviceCounter', phone: '15550001111', lastDeviceId: 2 }, linked(device('15550001111', 2)));

    expect(journalIn(dir).open()).toEqual({
      devices: [device('15550001111', 2)],
      deviceCounters: { '15550001111': 2 },
      contacts: { '15550002222': { ...DEFAULT_CONTACT, readAfterMs: null } },
    });
  });

  it('forgets a change the process was killed in the middle of writing', () => {
    const first = journalIn(freshDir());
    first.open();
    first.change(linked(device('15550001111')));
    appendFileSync(join(dir, 'network.jsonl'), JSON.stringify(linked(device('15550003333'))).slice(0, 100));

    expect(journalIn(dir).open().devices.map((d) => d.phone)).toEqual(['15550001111']);
    expect(readFileSync(join(dir, 'network.jsonl'), 'utf8')).toBe('');
  });

  it('rewrites the snapshot only once the changes since outgrow it, so a change costs the same however many devices there are', () => {
    const network = journalIn(freshDir());
    network.open();
    const phones = Array.from({ length: 300 }, (_, i) => `1555${String(i).padStart(7, '0')}`);
    for (const phone of phones) network.change(linked(device(phone)));

    // ~6 KB a device: past 1 MiB of changes (~170 devices) the journal was folded into the
    // snapshot, once; the devices linked since are in the journal only.
    const snapshot = JSON.parse(readFileSync(join(dir, 'network.json'), 'utf8')) as NetworkSnapshot;
    expect(snapshot.devices.length).toBeGreaterThan(100);
    expect(snapshot.devices.length).toBeLessThan(phones.length);
    expect(size(dir, 'network.jsonl')).toBeLessThan(size(dir, 'network.json'));
    expect(journalIn(dir).open().devices.map((d) => d.phone)).toEqual(phones);
  });
});
