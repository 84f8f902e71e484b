import { randomBytes } from 'node:crypto';
import { jetstreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KvSentLog } from '../src/sent-log/kv-sent-log.js';
import { SENT_LOG_RETENTION_MS } from '../src/sent-log/sent-log.js';
import type { SentRecord } from '../src/sent-log/sent-log.js';

// The distributed mode's sent log, on the NATS server the tests share; each test has its own bucket.
const NATS_URL = process.env['SWITCHBOARD_NATS_URL'] ?? 'nats://127.0.0.1:4222';

let nats: NatsConnection;
const buckets: string[] = [];
beforeAll(async () => {
  nats = await connect({ servers: NATS_URL, name: 'kv-sent-log-test' });
});
afterEach(async () => {
  const jsm = await jetstreamManager(nats);
  for (const bucket of buckets.splice(0)) await jsm.streams.delete(`KV_${bucket}`).catch(() => undefined);
});
afterAll(async () => {
  await nats?.close();
});

function bucket(): string {
  const name = `test_sent_${randomBytes(6).toString('hex')}`;
  buckets.push(name);
  return name;
}

const record = (n: number, over: Partial<SentRecord> = {}): SentRecord => ({
  accountId: 'acc_01JD0000000000000000000001',
  sessionId: 'ses_01JD0000000000000000000001',
  messageId: `msg_01JD00000000000000000${String(n).padStart(5, '0')}`,
  networkMessageId: `3EB0${String(n).padStart(20, '0')}`,
  sentAt: '2026-11-21T10:00:00.000Z',
  ...over,
});

describe('the sent log (JetStream KV)', () => {
  it("answers a message's record to its own account and session only, also to another replica", async () => {
    const name = bucket();
    const writer = await KvSentLog.open(nats, { bucket: name });
    await writer.record(record(1, { from: '15550001111' }));
    await writer.record(record(2));

    const other = await connect({ servers: NATS_URL, name: 'kv-sent-log-test-replica-2' });
    try {
      const reader = await KvSentLog.open(other, { bucket: name });
      const { accountId, sessionId, messageId } = record(1);
      expect(await reader.find(accountId, sessionId, messageId)).toEqual(record(1, { from: '15550001111' }));
      expect(await reader.find(accountId, sessionId, record(2).messageId)).toEqual(record(2));
      expect(await reader.find('acc_01JD0000000000000000000002', sessionId, messageId)).toBeUndefined();
      expect(await reader.find(accountId, 'ses_01JD0000000000000000000002', messageId)).toBeUndefined();
      expect(await reader.find(accountId, sessionId, record(3).messageId)).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('lets the server expire records after the retention (forgetBefore has nothing to do)', async () => {
    const name = bucket();
    const log = await KvSentLog.open(nats, { bucket: name });
    const status = await (await new Kvm(nats).open(name)).status();
    expect([status.ttl, status.history, status.storage]).toEqual([SENT_LOG_RETENTION_MS, 1, 'file']);

    const short = bucket();
    const expiring = await KvSentLog.open(nats, { bucket: short, retentionMs: 1_000 });
    await expiring.record(record(1));
    expect(await expiring.find(record(1).accountId, record(1).sessionId, record(1).messageId)).toEqual(record(1));
    expect(await log.forgetBefore(new Date())).toBe(0);
    const giveUpAt = Date.now() + 10_000;
    while ((await expiring.find(record(1).accountId, record(1).sessionId, record(1).messageId)) && Date.now() < giveUpAt) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(await expiring.find(record(1).accountId, record(1).sessionId, record(1).messageId)).toBeUndefined();
  });

  it('refuses an id that is not a key token instead of writing under another key', async () => {
    const log = await KvSentLog.open(nats, { bucket: bucket() });
    await expect(log.record(record(1, { messageId: 'msg.1' }))).rejects.toThrow(/message id cannot be a KV key token/);
    await expect(log.find(record(1).accountId, 'ses_*', record(1).messageId)).rejects.toThrow(/session id cannot be a KV key token/);
  });
});
