import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { proto } from '@whiskeysockets/baileys';
import type { WAMessage } from '@whiskeysockets/baileys';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SessionCredentials } from '../credentials/session-credentials.js';
import { SqliteCredentialsStore } from '../credentials/sqlite-credentials-store.js';
import { LidSenders } from './lid-senders.js';

const byLid = (lid: string, id: string, pn?: string): WAMessage =>
  ({ key: { remoteJid: `${lid}@lid`, id, fromMe: false, ...(pn ? { remoteJidAlt: `${pn}@s.whatsapp.net` } : {}) }, message: { conversation: id } }) as WAMessage;
const unknown = async () => undefined;

describe('naming LID senders by number', () => {
  it('passes a message with its number, and names a LID-only one from the stored mapping', async () => {
    const senders = new LidSenders();
    expect(await senders.name(byLid('915550001', 'a', '15550001'), unknown)).toHaveLength(1);
    const [named] = await senders.name(byLid('915550001', 'b'), async (lid) => (lid === '915550001@lid' ? '15550001@s.whatsapp.net' : undefined));
    expect(named?.key.remoteJidAlt).toBe('15550001@s.whatsapp.net');
  });

  it('holds LID-only messages until a message or a mapping names the LID, then gives them first, in order', async () => {
    const senders = new LidSenders();
    expect(await senders.name(byLid('915550002', 'first'), unknown)).toEqual([]);
    expect(await senders.name(byLid('915550002', 'second'), unknown)).toEqual([]);
    expect(await senders.name(byLid('915550003', 'other'), unknown)).toEqual([]);
    const out = await senders.name(byLid('915550002', 'third', '15550002'), unknown);
    expect(out.map((m) => [m.key.id, m.key.remoteJidAlt])).toEqual([
      ['first', '15550002@s.whatsapp.net'], ['second', '15550002@s.whatsapp.net'], ['third', '15550002@s.whatsapp.net'],
    ]);
    expect(senders.release('915550003@lid', '15550003@s.whatsapp.net').map((m) => m.key.id)).toEqual(['other']);
    expect(senders.held).toBe(0);
  });

  it('holds at most 256 messages, dropping the oldest', async () => {
    const senders = new LidSenders();
    for (let i = 0; i < 258; i++) await senders.name(byLid('915550004', `m${i}`), unknown);
    expect(senders.held).toBe(256);
    expect(senders.release('915550004', '15550004').map((m) => m.key.id).slice(0, 2)).toEqual(['m2', 'm3']);
  });
});

describe('held messages kept with the credentials', () => {
  let dir: string;
  let store: SqliteCredentialsStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sb-lid-held-'));
    store = new SqliteCredentialsStore({ path: join(dir, 'sessions.db'), key: randomBytes(32) });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads back what was held before a restart, ahead of what was held since, and forgets what was recorded', async () => {
    const before = new LidSenders(new SessionCredentials('ses_1', store));
    await before.restore(unknown);
    // As the network's stanza decodes: the timestamp a protobuf Long.
    const stamped = proto.WebMessageInfo.decode(proto.WebMessageInfo.encode({ ...byLid('915550005', 'first'), messageTimestamp: 1_700_000_000 }).finish()) as WAMessage;
    expect(typeof stamped.messageTimestamp).toBe('object');
    await before.name(stamped, unknown);
    await before.name(byLid('915550006', 'other'), unknown);

    const after = new LidSenders(new SessionCredentials('ses_1', store));
    // Held while the store was not read yet: kept after the ones of before the restart.
    expect(await after.name(byLid('915550005', 'second'), unknown)).toEqual([]);
    expect(await after.restore(async (lid) => (lid === '915550006@lid' ? '15550006@s.whatsapp.net' : undefined))).toMatchObject([
      { key: { id: 'other', remoteJidAlt: '15550006@s.whatsapp.net' } },
    ]);
    after.recorded('other');
    await after.forgetRecorded();
    const out = await after.name(byLid('915550005', 'third', '15550005'), unknown);
    expect(out.map((m) => m.key.id)).toEqual(['first', 'second', 'third']);
    expect(Number(out[0]!.messageTimestamp)).toBe(1_700_000_000);
    // Told, not recorded yet (messaging away, a crash): kept, and told again after a restart.
    await after.forgetRecorded();
    expect(await store.rowCount('ses_1')).toBeGreaterThan(0);
    const restarted = new LidSenders(new SessionCredentials('ses_1', store));
    expect((await restarted.restore(async (lid) => (lid === '915550005@lid' ? '15550005@s.whatsapp.net' : undefined))).map((m) => m.key.id)).toEqual(['first', 'second']);
    for (const id of ['first', 'second', 'third']) restarted.recorded(id);
    await restarted.forgetRecorded();
    expect(await store.rowCount('ses_1')).toBe(0);
  });

  it('does not overwrite the stored list while it cannot be read, and keeps what was held meanwhile once it is', async () => {
    const credentials = new SessionCredentials('ses_2', store);
    const first = new LidSenders(credentials);
    await first.restore(unknown);
    await first.name(byLid('915550007', 'kept'), unknown);

    let readable = false;
    const flaky = {
      readRecord: (kind: string, keyId: string) => (readable ? credentials.readRecord(kind, keyId) : Promise.reject(new Error('store away'))),
      writeRecords: (rows: Parameters<SessionCredentials['writeRecords']>[0]) => credentials.writeRecords(rows),
    };
    const restarted = new LidSenders(flaky);
    await expect(restarted.restore(unknown)).rejects.toThrow('store away');
    await restarted.name(byLid('915550007', 'later'), unknown);
    readable = true;
    await restarted.restore(unknown);
    // Both kept, for a restart after that too.
    const again = new LidSenders(credentials);
    await again.restore(unknown);
    const out = await again.name(byLid('915550007', 'named', '15550007'), unknown);
    expect(out.map((m) => m.key.id)).toEqual(['kept', 'later', 'named']);
  });
});
