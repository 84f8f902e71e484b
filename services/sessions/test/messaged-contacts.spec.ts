import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KvMessagedContacts } from '../src/pacing/kv-messaged-contacts.js';
import { MESSAGED_RETENTION_MS } from '../src/pacing/messaged-contacts.js';
import type { MessagedContacts } from '../src/pacing/messaged-contacts.js';
import { SqliteMessagedContacts } from '../src/pacing/sqlite-messaged-contacts.js';

// The record of whom each session messaged (send pacing), in both modes: a SQLite file, and the
// JetStream KV bucket on the NATS server the tests share (a bucket of its own per run).
const NATS_URL = process.env['SWITCHBOARD_NATS_URL'] ?? 'nats://127.0.0.1:4222';
const ACC = 'acc_01JD0000000000000000000001';
const OTHER_ACC = 'acc_01JD0000000000000000000002';
const SES = 'ses_01JD0000000000000000000001';
const OTHER_SES = 'ses_01JD0000000000000000000002';

let nats: NatsConnection;
let dir: string;
const bucket = `test_contacts_${randomBytes(6).toString('hex')}`;
beforeAll(async () => {
  nats = await connect({ servers: NATS_URL, name: 'messaged-contacts-test' });
  dir = mkdtempSync(join(tmpdir(), 'sb-contacts-'));
});
afterAll(async () => {
  await (await jetstreamManager(nats)).streams.delete(`KV_${bucket}`).catch(() => undefined);
  await nats?.close();
  rmSync(dir, { recursive: true, force: true });
});

const adapters: [string, () => Promise<MessagedContacts>][] = [
  ['SQLite (embedded)', async () => new SqliteMessagedContacts(join(dir, 'messaged-contacts.sqlite'))],
  ['JetStream KV (distributed)', () => KvMessagedContacts.open(nats, bucket)],
];

describe.each(adapters)('messaged contacts in %s', (_name, open) => {
  it('knows a number once messaged, per session and account, also when opened again (a restart, another replica)', async () => {
    const t = Date.now();
    const first = await open();
    expect(await first.seen(ACC, SES, '15551230001')).toBeUndefined();
    expect(await first.lastNewContactAt(ACC, SES)).toBeUndefined();
    await first.remember(ACC, SES, '15551230001', t + 1_000, true);
    await first.remember(ACC, SES, '15551230002', t + 2_000, true);
    await first.remember(ACC, SES, '15551230001', t + 3_000, false);
    await first.close();

    const again = await open();
    expect(await again.seen(ACC, SES, '15551230001')).toBe(t + 3_000);
    expect(await again.seen(ACC, SES, '15551230002')).toBe(t + 2_000);
    expect(await again.lastNewContactAt(ACC, SES)).toBe(t + 2_000);
    // Another session, or the same session id under another account, knows nobody.
    expect(await again.seen(ACC, OTHER_SES, '15551230001')).toBeUndefined();
    expect(await again.seen(OTHER_ACC, SES, '15551230001')).toBeUndefined();
    expect(await again.lastNewContactAt(ACC, OTHER_SES)).toBeUndefined();
    // A contact who wrote first is known from then on, but no first message to a new contact was sent.
    await again.remember(ACC, SES, '15551230003', t + 4_000, false);
    expect(await again.seen(ACC, SES, '15551230003')).toBe(t + 4_000);
    expect(await again.lastNewContactAt(ACC, SES)).toBe(t + 2_000);
    await again.close();
  });
});

it('keeps no phone number in the record, only a hash', async () => {
  const contacts = new SqliteMessagedContacts(join(dir, 'hashed.sqlite'));
  await contacts.remember(ACC, SES, '15551239999', Date.now(), true);
  await contacts.close();
  const { readFileSync } = await import('node:fs');
  expect(readFileSync(join(dir, 'hashed.sqlite')).includes('15551239999')).toBe(false);
});

it('forgets, at the next start, numbers not messaged within the retention (SQLite; KV: the bucket max age)', async () => {
  const path = join(dir, 'aged.sqlite');
  const now = Date.now();
  const contacts = new SqliteMessagedContacts(path, () => now);
  await contacts.remember(ACC, SES, '15551230100', now - MESSAGED_RETENTION_MS - 1, true);
  await contacts.remember(ACC, SES, '15551230101', now - MESSAGED_RETENTION_MS + 60_000, true);
  await contacts.close();
  const reopened = new SqliteMessagedContacts(path, () => now);
  expect(await reopened.seen(ACC, SES, '15551230100')).toBeUndefined();
  expect(await reopened.seen(ACC, SES, '15551230101')).toBeDefined();
  await reopened.close();
});

it('counts a number as new again once the retention passes in a process that keeps running (SQLite)', async () => {
  let now = Date.now();
  const contacts = new SqliteMessagedContacts(join(dir, 'running.sqlite'), () => now);
  await contacts.remember(ACC, SES, '15551230200', now, true);
  expect(await contacts.seen(ACC, SES, '15551230200')).toBe(now);
  now += MESSAGED_RETENTION_MS + 1;
  expect(await contacts.seen(ACC, SES, '15551230200')).toBeUndefined();
  // Messaged again as a new contact (its old row still there until the next start): the new-contact gap counts from now.
  await contacts.remember(ACC, SES, '15551230200', now, true);
  expect(await contacts.lastNewContactAt(ACC, SES)).toBe(now);
  await contacts.close();
});
