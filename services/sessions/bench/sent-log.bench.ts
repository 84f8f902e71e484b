/**
 * What the sent log costs a send: one lookup before it and one durable record after it, in the
 * sessions process's CPU. `npm run bench:sent-log -w @switchboard/sessions` (also part of
 * `npm run bench`). BENCH_SENT_LOG_SENDS (default 20000) sends with 24 in flight, as the crash
 * burst has; beside it the same records each in a transaction of its own, the cost a
 * non-coalesced write would add.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteDatabase } from '@switchboard/eventstore';
import { SqliteSentLog } from '../src/sent-log/sqlite-sent-log.js';
import type { SentRecord } from '../src/sent-log/sent-log.js';

const SENDS = Number(process.env['BENCH_SENT_LOG_SENDS'] ?? 20_000);
const IN_FLIGHT = 24;
const dir = mkdtempSync(join(tmpdir(), 'sb-sent-log-bench-'));

const sent = (i: number): SentRecord => ({
  accountId: 'acc_01JD0000000000000000000001',
  sessionId: 'ses_01JD0000000000000000000001',
  messageId: `msg_01JD${String(i).padStart(22, '0')}`,
  networkMessageId: `3EB0${String(i).padStart(20, '0')}`,
  sentAt: new Date().toISOString(),
});

/** CPU µs per send and sends/s for `send(i)` run with 24 in flight. */
async function measure(send: (i: number) => Promise<void>) {
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < SENDS) await send(next++);
  }));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { cpuMicrosPerSend: +((used.user + used.system) / SENDS).toFixed(1), perSecond: Math.round(SENDS / seconds) };
}

/** The driver's ack arrives on a socket callback of its own: one send = find, ack (next turn), record. */
const ack = () => new Promise<void>((resolve) => setImmediate(resolve));

const log = new SqliteSentLog(join(dir, 'coalesced.sqlite'));
const coalesced = await measure(async (i) => {
  await log.find(sent(i).accountId, sent(i).sessionId, sent(i).messageId);
  await ack();
  await log.record(sent(i));
});
await log.close();

const db = openSqliteDatabase(join(dir, 'one-per-send.sqlite'), 'CREATE TABLE sent (message_id TEXT PRIMARY KEY, account_id TEXT, session_id TEXT, network_message_id TEXT, sent_at TEXT, recorded_at INTEGER)');
const insert = db.prepare('INSERT INTO sent VALUES (?, ?, ?, ?, ?, ?)');
const select = db.prepare('SELECT network_message_id FROM sent WHERE message_id = ?');
const onePerSend = await measure(async (i) => {
  select.get(sent(i).messageId);
  await ack();
  const r = sent(i);
  insert.run(r.messageId, r.accountId, r.sessionId, r.networkMessageId, r.sentAt, Date.now());
});
db.close();

const baseline = await measure(ack);
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ sends: SENDS, inFlight: IN_FLIGHT, noSentLog: baseline, coalesced, onePerSend }, null, 2));
