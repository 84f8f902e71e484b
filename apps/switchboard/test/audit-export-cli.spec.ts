import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { accountStream, messageStream } from '@switchboard/contracts';
import { PostgresEventStore } from '@switchboard/eventstore';
import { createTestDatabase, postgresSkipReason } from '@switchboard/eventstore/testing';
import { A, M1, R1, seedAuditData } from './support/audit-data.js';
import { runCli } from './support/cli.js';

let dataDir: string;
let midway: string;

beforeAll(async () => {
  ({ dataDir, midway } = await seedAuditData());
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

interface Finding { kind: string; stream: string; revision: number | null; line: number | null; expected: string; found: string }
interface FileReport { ok: boolean; events: number; streams: number; chainedStreams: number; manifestSha256: string | null; findings: Finding[] }

async function exportTo(file: string, ...args: string[]): Promise<{ manifestSha256: string; manifest: Record<string, unknown> }> {
  const run = await runCli(['audit', 'export', '--account', A, '--out', file, '--json', ...args], dataDir);
  expect([run.code, run.stderr]).toEqual([0, '']);
  return JSON.parse(run.stdout);
}

async function verifyFile(file: string): Promise<{ code: number; report: FileReport }> {
  const run = await runCli(['audit', 'verify', '--file', file, '--json'], dataDir);
  expect(run.stderr).toBe('');
  return { code: run.code, report: JSON.parse(run.stdout) };
}

const lines = (file: string) => readFileSync(file, 'utf8').trimEnd().split('\n');
const out = (name: string) => join(dataDir, name);

describe('switchboard audit export and audit verify --file', () => {
  it('writes every event of the account once (JSON Lines, owner-only), then its manifest, and verifies it (exit 0)', async () => {
    const file = out('account.jsonl');
    const exported = await exportTo(file);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const rows = lines(file).map((line) => JSON.parse(line));
    expect(rows).toHaveLength(20);
    const events = rows.slice(0, -1);
    expect(new Set(events.map((e) => e.metadata.accountId))).toEqual(new Set([A]));
    expect(events[0]).toMatchObject({ service: 'quota', stream: `account-${A}`, revision: 0, position: 1, type: 'AccountOpened', recordedAt: expect.any(String) });
    // The whole record: data as stored (the key's hash too: the chain covers it), the chain links in metadata.
    expect(events.find((e) => e.type === 'ApiKeyIssued').data.keyHash).toBe('a'.repeat(64));
    for (const e of events) expect(e.metadata).toMatchObject({ prevHash: expect.stringMatching(/^[0-9a-f]{64}$/), hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const { manifest } = rows.at(-1);
    expect(manifest).toMatchObject({ format: 'switchboard-audit-export', version: 1, accountId: A, events: 19, streams: 9 });
    expect(manifest.heads[messageStream(M1)]).toMatchObject({ service: 'messaging', events: 4, firstRevision: 0, lastRevision: 3, startHash: '0'.repeat(64), hash: events.filter((e) => e.stream === messageStream(M1)).at(-1).metadata.hash });
    expect(exported.manifest).toMatchObject({ events: 19, streams: 9 });

    const { code, report } = await verifyFile(file);
    expect([code, report.findings]).toEqual([0, []]);
    expect(report).toMatchObject({ ok: true, events: 19, streams: 9, chainedStreams: 9, manifestSha256: exported.manifestSha256 });
  });

  it('finds an edited event, an event cut from a stream\'s end and a cut file (exit 1 each)', async () => {
    const file = out('tampered.jsonl');
    await exportTo(file);
    const original = lines(file);

    const edited = original.map((line) => line.replace('"text":"thanks!"', '"text":"no thanks"'));
    expect(edited).not.toEqual(original);
    writeFileSync(file, `${edited.join('\n')}\n`);
    const altered = await verifyFile(file);
    expect(altered.code).toBe(1);
    expect(altered.report.findings).toEqual([expect.objectContaining({ kind: 'altered', stream: messageStream(R1), revision: 0 })]);

    // M1's read receipt, its stream's last event: its links are whole, only the manifest's head tells.
    const withoutRead = original.filter((line) => !line.includes('"type":"MessageRead"'));
    writeFileSync(file, `${withoutRead.join('\n')}\n`);
    const removed = await verifyFile(file);
    expect(removed.code).toBe(1);
    expect(removed.report.findings.filter((f) => f.stream === messageStream(M1)).map((f) => f.expected)).toEqual([
      'events 4', 'last revision 3', expect.stringMatching(/^head [0-9a-f]{64}$/),
    ]);

    const text = original.join('\n');
    writeFileSync(file, text.slice(0, text.indexOf('"type":"MessageSent"')));
    const cut = await verifyFile(file);
    expect(cut.code).toBe(1);
    expect(cut.report.findings.map((f) => f.kind)).toEqual(['unreadable', 'incomplete']);
    expect(cut.report.manifestSha256).toBeNull();

    const human = await runCli(['audit', 'verify', '--file', file], dataDir);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(/\nincomplete +- +- +- +- +the manifest as the last line +none: the file was cut or is not a whole export\n/);
    expect(human.stdout).toContain('2 findings: the export was altered, cut, or does not match its manifest.');
  });

  it('writes CSV with a header, one row per event and the manifest row; verifies it and finds an edited cell', async () => {
    const file = out('account.csv');
    const exported = await exportTo(file, '--format', 'csv');
    const rows = parse(readFileSync(file), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual(['record', 'service', 'stream', 'revision', 'position', 'id', 'type', 'recordedAt', 'correlationId', 'causationId', 'prevHash', 'hash', 'data', 'metadata']);
    expect(rows).toHaveLength(20);
    expect(rows[6]).toMatchObject({ record: 'event', type: 'MessageAccepted', stream: messageStream(M1), correlationId: `req-${M1}` });
    expect(JSON.parse(rows[6]!['data']!).content.text).toBe('Your order #42 has shipped and arrives tomorrow before noon');
    expect(rows.at(-1)).toMatchObject({ record: 'manifest', stream: '' });
    expect(JSON.parse(rows.at(-1)!['data']!)).toMatchObject({ events: 19, accountId: A });

    const { code, report } = await verifyFile(file);
    expect([code, report.findings, report.manifestSha256]).toEqual([0, [], exported.manifestSha256]);

    writeFileSync(file, readFileSync(file, 'utf8').replace('""plan"":""basic""', '""plan"":""premium""'));
    const edited = await verifyFile(file);
    expect(edited.code).toBe(1);
    expect(edited.report.findings).toEqual([expect.objectContaining({ kind: 'altered', stream: `account-${A}`, revision: 0 })]);
  });

  it('exports a window (streams cut in the middle verify from their first exported event), and refuses an unknown account', async () => {
    const file = out('later.jsonl');
    const { manifest } = await exportTo(file, '--from', midway);
    expect(manifest).toMatchObject({ events: 11, from: midway });
    const head = JSON.parse(lines(file).at(-1)!).manifest.heads[messageStream(M1)];
    expect(head).toMatchObject({ events: 2, firstRevision: 2, lastRevision: 3 });
    expect(head.startHash).not.toBe('0'.repeat(64));
    expect((await verifyFile(file)).code).toBe(0);

    const missing = out('missing.jsonl');
    const unknown = await runCli(['audit', 'export', '--account', 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0ZZZ', '--out', missing], dataDir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^switchboard: no account acc_01JD8Z5W3X4Y5Z6A7B8C9D0ZZZ in the quota store/);
    expect(existsSync(missing)).toBe(false);
    const noOut = await runCli(['audit', 'export', '--account', A], dataDir);
    expect([noOut.code, noOut.stderr]).toEqual([2, 'switchboard: --out is required: the file to write\n']);
  });
});

const postgresSkip = await postgresSkipReason();

describe.skipIf(postgresSkip !== undefined)(`audit history and export on PostgreSQL${postgresSkip ? ` (skipped: ${postgresSkip})` : ''}`, () => {
  it('reads each service\'s schema, merges them by time, and the export verifies', async () => {
    const database = await createTestDatabase('sb_audit_export');
    try {
      const meta = { accountId: A, correlationId: 'req-1', causationId: 'req-1', occurredAt: '2026-11-21T10:00:00.000Z', schemaVersion: 1 };
      const quota = new PostgresEventStore(database.url, { schema: 'quota' });
      await quota.append(accountStream(A), [{ type: 'AccountOpened', data: { accountId: A, name: null, plan: 'basic', openedAt: meta.occurredAt }, metadata: meta }], { expectedRevision: 'no_stream' });
      await quota.close();
      const messaging = new PostgresEventStore(database.url, { schema: 'messaging' });
      await messaging.append(messageStream(M1), [
        { type: 'MessageAccepted', data: { messageId: M1, accountId: A, sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0SSS', to: '15551110001', content: { type: 'text', text: 'hi' }, quotedMessageId: null, usageDay: '2026-11-21', acceptedAt: meta.occurredAt, idempotencyKeyHash: null }, metadata: meta },
        { type: 'MessageSent', data: { messageId: M1, networkMessageId: '3EB0', sentAt: meta.occurredAt }, metadata: meta },
      ], { expectedRevision: 'no_stream' });
      await messaging.close();
      const env = { SWITCHBOARD_EVENTSTORE_URL: database.url };

      const history = await runCli(['audit', 'history', '--message', M1], dataDir, env);
      expect([history.code, history.stderr]).toEqual([0, '']);
      expect(history.stdout).toMatch(/messaging  MessageAccepted .*\n.*messaging  MessageSent .*\n2 facts of message/);

      const file = out('postgres.jsonl');
      const exported = await runCli(['audit', 'export', '--account', A, '--out', file], dataDir, env);
      expect([exported.code, exported.stderr]).toEqual([0, '']);
      expect(lines(file).map((line) => JSON.parse(line).type ?? 'manifest')).toEqual(['AccountOpened', 'MessageAccepted', 'MessageSent', 'manifest']);
      expect((await verifyFile(file)).code).toBe(0);
    } finally {
      await database.drop();
    }
  });
});
