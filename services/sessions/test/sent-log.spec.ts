import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseSync } from 'node:sqlite';
import { SqliteSentLog } from '../src/sent-log/sqlite-sent-log.js';
import type { SentRecord } from '../src/sent-log/sent-log.js';

const root = resolve(import.meta.dirname, '..');
const workspace = resolve(root, '../..');
const dir = mkdtempSync(join(tmpdir(), 'sb-sent-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = (n: number, over: Partial<SentRecord> = {}): SentRecord => ({
  accountId: 'acc_01JD0000000000000000000001',
  sessionId: 'ses_01JD0000000000000000000001',
  messageId: `msg_01JD00000000000000000${String(n).padStart(5, '0')}`,
  networkMessageId: `3EB0${String(n).padStart(20, '0')}`,
  sentAt: '2026-11-21T10:00:00.000Z',
  ...over,
});

describe('the sent log (SQLite)', () => {
  beforeAll(() => {
    // The durability case runs the built adapter in a child process (`nx` caches a fresh build).
    execFileSync(join(workspace, 'node_modules/.bin/nx'), ['run', '@switchboard/sessions:build', '--output-style=static'], { cwd: workspace, stdio: 'ignore' });
  }, 180_000);

  it("answers a message's record to its own account and session only, also from another opening of the file", async () => {
    const path = join(dir, 'shared.sqlite');
    const writer = new SqliteSentLog(path);
    await writer.record(record(1));
    const reader = new SqliteSentLog(path);
    expect(await reader.find(record(1).accountId, record(1).sessionId, record(1).messageId)).toEqual(record(1));
    expect(await reader.find('acc_01JD0000000000000000000002', record(1).sessionId, record(1).messageId)).toBeUndefined();
    expect(await reader.find(record(1).accountId, 'ses_01JD0000000000000000000002', record(1).messageId)).toBeUndefined();
    expect(await reader.find(record(1).accountId, record(1).sessionId, record(2).messageId)).toBeUndefined();
    await Promise.all([writer.close(), reader.close()]);
  });

  it('keeps every record whose record() resolved through a SIGKILL right after', async () => {
    const path = join(dir, 'killed.sqlite');
    const adapter = join(root, 'dist/src/sent-log/sqlite-sent-log.js');
    // 200 records made in one turn; once all resolved, the process says so and never runs another
    // turn (a busy loop until the kill): whatever was not committed by then is lost.
    const script = `
      const { SqliteSentLog } = await import(${JSON.stringify(adapter)});
      const { writeSync } = await import('node:fs');
      const log = new SqliteSentLog(${JSON.stringify(path)});
      const records = ${JSON.stringify(Array.from({ length: 200 }, (_, i) => record(i)))};
      await Promise.all(records.map((r) => log.record(r)));
      writeSync(1, 'recorded\\n');
      for (;;);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((done) => child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('recorded') && done()));
    const exited = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await exited;
    const log = new SqliteSentLog(path);
    const found = await Promise.all(Array.from({ length: 200 }, (_, i) => log.find(record(i).accountId, record(i).sessionId, record(i).messageId)));
    expect(found.filter((r) => r === undefined)).toHaveLength(0);
    await log.close();
  });

  it("keeps the sender's number with the record, also in a file written before it was kept", async () => {
    const path = join(dir, 'older.sqlite');
    const old = new DatabaseSync(path);
    old.exec(`CREATE TABLE sent_messages (message_id TEXT PRIMARY KEY, account_id TEXT NOT NULL, session_id TEXT NOT NULL,
      network_message_id TEXT NOT NULL, sent_at TEXT NOT NULL, recorded_at INTEGER NOT NULL)`);
    old.prepare('INSERT INTO sent_messages VALUES (?, ?, ?, ?, ?, ?)').run(record(1).messageId, record(1).accountId, record(1).sessionId, record(1).networkMessageId, record(1).sentAt, 0);
    old.close();
    const log = new SqliteSentLog(path);
    expect(await log.find(record(1).accountId, record(1).sessionId, record(1).messageId)).toEqual(record(1));
    await log.record(record(2, { from: '15550001111' }));
    expect(await log.find(record(2).accountId, record(2).sessionId, record(2).messageId)).toEqual(record(2, { from: '15550001111' }));
    await log.close();
  });

  it('forgets records older than the cutoff and keeps the newer ones', async () => {
    let now = Date.parse('2026-11-21T10:00:00.000Z');
    const log = new SqliteSentLog(join(dir, 'retention.sqlite'), () => now);
    await Promise.all([record(1), record(2)].map((r) => log.record(r)));
    now += 60_000;
    await log.record(record(3));
    expect(await log.forgetBefore(new Date(now - 30_000))).toBe(2);
    const left = await Promise.all([1, 2, 3].map((n) => log.find(record(n).accountId, record(n).sessionId, record(n).messageId)));
    expect(left.map((r) => r?.messageId)).toEqual([undefined, undefined, record(3).messageId]);
    await log.close();
  });

  it('keeps the first record of a message id', async () => {
    const log = new SqliteSentLog(join(dir, 'first.sqlite'));
    await log.record(record(1));
    await log.record(record(1, { sentAt: '2026-11-21T11:00:00.000Z' }));
    expect((await log.find(record(1).accountId, record(1).sessionId, record(1).messageId))?.sentAt).toBe(record(1).sentAt);
    await log.close();
  });
});
