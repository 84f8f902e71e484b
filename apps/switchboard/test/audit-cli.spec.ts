import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresEventStore, SqliteEventStore } from '@switchboard/eventstore';
import { createTestDatabase, onDatabase, postgresSkipReason } from '@switchboard/eventstore/testing';
import { progressLine } from '../src/cli/progress.js';
import { runCli as cli } from './support/cli.js';

const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Finding { service: string; stream: string; revision: number; position: number; kind: string; expected: string; found: string }
interface Report { ok: boolean; totals: Record<string, number>; findings: Finding[] }

async function verify(dataDir: string, ...args: string[]): Promise<{ code: number; report: Report }> {
  return verifyWith({}, dataDir, ...args);
}

async function verifyWith(env: Record<string, string>, dataDir: string, ...args: string[]): Promise<{ code: number; report: Report }> {
  const run = await cli(['audit', 'verify', '--json', ...args], dataDir, env);
  // stderr is no terminal here: no progress line, nothing else either.
  expect(run.stderr).toBe('');
  return { code: run.code, report: JSON.parse(run.stdout) as Report };
}

/**
 * A data dir whose messaging store holds three chained message streams of four events (appended
 * as the service does, through the store) and one stream written before chains existed.
 */
async function dataDirWithMessages(): Promise<{ dataDir: string; file: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-audit-'));
  dirs.push(dataDir);
  const file = join(dataDir, 'messaging', 'events.sqlite');
  const store = new SqliteEventStore(file);
  for (const id of ['a', 'b', 'c']) {
    const metadata = { accountId: 'acc_1', correlationId: `req-${id}`, schemaVersion: 1 };
    await store.append(`message-msg_${id}`, ['MessageAccepted', 'MessageSent', 'MessageDelivered', 'MessageRead'].map((type, n) => ({
      type, data: { messageId: `msg_${id}`, n }, metadata,
    })), { expectedRevision: 'no_stream' });
  }
  await store.close();
  const db = new DatabaseSync(file);
  db.prepare(`INSERT INTO events (id, stream, category, revision, type, data, metadata, recorded_at)
    VALUES ('legacy-0', 'message-msg_old', 'message', 0, 'MessageAccepted', '{"messageId":"msg_old"}', '{"accountId":"acc_1"}', 0)`).run();
  db.close();
  return { dataDir, file };
}

/** Runs SQL on the store file behind Switchboard's back, as someone with access to the disk could. */
function tamper(file: string, sql: string): void {
  const db = new DatabaseSync(file);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

describe('switchboard audit verify', () => {
  it('passes an untouched store (exit 0), counting the stream written before chains as unchained', async () => {
    const { dataDir } = await dataDirWithMessages();
    const { code, report } = await verify(dataDir);
    expect(code).toBe(0);
    expect(report).toMatchObject({ ok: true, totals: { events: 13, streams: 4, chainedStreams: 3, unchainedStreams: 1, findings: 0 }, findings: [] });

    const text = await cli(['audit', 'verify'], dataDir);
    expect([text.code, text.stderr]).toEqual([0, '']);
    expect(text.stdout).toMatch(/^SERVICE +STORE +EVENTS +STREAMS +CHAINED +UNCHAINED +FINDINGS +EVENTS\/S\n/);
    expect(text.stdout).toMatch(/\nmessaging +\S+messaging\/events\.sqlite +13 +4 +3 +1 +0 +[\d,]+\n/);
    expect(text.stdout).toMatch(/\nsessions +\S+ \(none yet\)/);
    expect(text.stdout).toContain('No findings: 3 chained streams intact (13 events read).\n1 unchained stream: written before hash chains, not verifiable (not a finding).');
  });

  it('finds an edited event (exit 1) with its stream, revision and position', async () => {
    const { dataDir, file } = await dataDirWithMessages();
    tamper(file, `UPDATE events SET data = '{"messageId":"msg_b","n":99}' WHERE stream = 'message-msg_b' AND revision = 2`);
    const { code, report } = await verify(dataDir);
    expect(code).toBe(1);
    expect(report.findings).toEqual([{ service: 'messaging', stream: 'message-msg_b', revision: 2, position: 7, kind: 'altered', expected: expect.stringMatching(/^[0-9a-f]{64}$/), found: expect.stringMatching(/^[0-9a-f]{64}$/) }]);

    const text = await cli(['audit', 'verify', '--service', 'messaging'], dataDir);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/\naltered +messaging +message-msg_b +2 +7 +[0-9a-f]{64} +[0-9a-f]{64}\n/);
    expect(text.stdout).toContain('1 finding: events were altered, removed, inserted or reordered outside Switchboard.');
  });

  it('finds a deleted event, and two swapped ones, each at its revision', async () => {
    const { dataDir, file } = await dataDirWithMessages();
    tamper(file, `DELETE FROM events WHERE stream = 'message-msg_a' AND revision = 1`);
    // Swap what revisions 1 and 2 of msg_c say, keeping their places in the log.
    tamper(file, `
      CREATE TEMP TABLE swap AS SELECT revision, type, data, metadata FROM events WHERE stream = 'message-msg_c' AND revision IN (1, 2);
      UPDATE events SET
        type = (SELECT type FROM swap WHERE swap.revision = 3 - events.revision),
        data = (SELECT data FROM swap WHERE swap.revision = 3 - events.revision),
        metadata = (SELECT metadata FROM swap WHERE swap.revision = 3 - events.revision)
      WHERE stream = 'message-msg_c' AND revision IN (1, 2);`);
    const { code, report } = await verify(dataDir, '--service', 'messaging');
    expect(code).toBe(1);
    expect(report.findings.map((f) => [f.stream, f.revision, f.position, f.kind])).toEqual([
      ['message-msg_a', 1, 3, 'removed'],
      ['message-msg_c', 1, 10, 'reordered'],
      ['message-msg_c', 2, 11, 'reordered'],
    ]);
    // One stream alone: only its findings.
    expect((await verify(dataDir, '--stream', 'message-msg_a')).report.findings.map((f) => [f.revision, f.kind])).toEqual([[1, 'removed']]);
    expect((await verify(dataDir, '--stream', 'message-msg_b')).code).toBe(0);
  });

  it('explains what it cannot verify: an unknown service (exit 2), a stream no store has (exit 1)', async () => {
    const { dataDir } = await dataDirWithMessages();
    const service = await cli(['audit', 'verify', '--service', 'billing'], dataDir);
    expect([service.code, service.stderr]).toEqual([2, 'switchboard: --service: one of sessions, messaging, quota, events (got "billing")\n']);
    const stream = await cli(['audit', 'verify', '--stream', 'message-msg_none'], dataDir);
    expect([stream.code, stream.stderr]).toEqual([1, 'switchboard: stream "message-msg_none" has no events in the sessions, messaging, quota, events stores\n']);
  });
});

const postgresSkip = await postgresSkipReason();

describe.skipIf(postgresSkip !== undefined)(`switchboard audit verify on PostgreSQL${postgresSkip ? ` (skipped: ${postgresSkip})` : ''}`, () => {
  it('reads each service\'s schema and finds an event edited in the table', async () => {
    const database = await createTestDatabase('sb_audit_cli');
    try {
      const store = new PostgresEventStore(database.url, { schema: 'quota' });
      for (let n = 0; n < 3; n += 1) {
        await store.append(`account-acc_${n}`, [{ type: 'AccountOpened', data: { n } }, { type: 'PlanChanged', data: { plan: 'basic' } }], { expectedRevision: 'no_stream' });
      }
      await store.close();
      const env = { SWITCHBOARD_EVENTSTORE_URL: database.url };
      const untouched = await verifyWith(env, tmpdir());
      expect(untouched).toMatchObject({ code: 0, report: { totals: { events: 6, streams: 3, chainedStreams: 3, findings: 0 } } });

      await onDatabase(database.url, (client) => client.query(`UPDATE quota.events SET data = '{"plan":"enterprise"}' WHERE stream = 'account-acc_1' AND revision = 1`));
      const tampered = await verifyWith(env, tmpdir(), '--service', 'quota');
      expect(tampered.code).toBe(1);
      expect(tampered.report.findings).toMatchObject([{ service: 'quota', stream: 'account-acc_1', revision: 1, position: 4, kind: 'altered' }]);
    } finally {
      await database.drop();
    }
  });
});

describe('the progress line', () => {
  it('shows the share done, the count and the rate', () => {
    expect(progressLine({ label: 'messaging', done: 150_000, fraction: 0.5, seconds: 1.5, unit: 'events' }))
      .toBe('messaging  [############------------]  50%  150,000 events  100,000 events/s');
    expect(progressLine({ label: 'all', done: 10, fraction: undefined, seconds: 0, unit: 'events' })).toBe('all  10 events  0 events/s');
  });
});
