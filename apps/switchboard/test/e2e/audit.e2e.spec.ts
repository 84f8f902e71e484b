import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageStream } from '@switchboard/contracts';
import { runCli } from '../support/cli.js';
import { ApiClient, eventually } from '../support/http.js';
import { startEmbedded } from '../support/harness.js';
import type { SwitchboardUnderTest } from '../support/harness.js';

let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;

// The auditor's view of a running Switchboard (embedded mode: one process, the stores in its data
// dir): the CLI reads the SQLite files while it runs, the gateway serves the same export over HTTP.
describe('auditing a running Switchboard (embedded mode)', () => {
  let sut: SwitchboardUnderTest;
  let api: ApiClient;
  let admin: ApiClient;
  let accountId: string;
  let sessionId: string;
  let me: string;
  const files = mkdtempSync(join(tmpdir(), 'sb-audit-e2e-'));
  // The server's key: with it the CLI opens the message contents, sealed in the store (issue 16).
  const secretKey = randomBytes(32).toString('hex');

  beforeAll(async () => {
    sut = await startEmbedded({ env: { SWITCHBOARD_SECRET_KEY: secretKey } });
    api = new ApiClient(sut.url, sut.apiKey);
    admin = new ApiClient(sut.url, sut.adminKey);
    me = newPhone('1444');
    const created = await api.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, me);
    sessionId = created.body.data.sessionId;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
    accountId = (await admin.get('/v1/admin/accounts')).body.data.accounts[0].accountId;
  }, 180_000);
  afterAll(async () => {
    await sut?.close();
    rmSync(files, { recursive: true, force: true });
  });

  it('replays a sent message from its daily unit to read, and the contact\'s reply, with the request that caused each', async () => {
    const contact = newPhone('1666');
    const sent = await api.post('/v1/messages/text', { sessionId, to: contact, text: 'Your order #42 has shipped 📦' });
    expect(sent.status).toBe(201);
    const messageId: string = sent.body.data.messageId;
    await eventually(() => api.get(`/v1/messages/${messageId}`), (r) => r.body?.data?.status === 'read');
    await sut.emulator.send(contact, { to: me, text: 'great, thanks' } as never);
    await eventually(() => api.get(`/v1/messages?direction=in&contact=${contact}`), (r) => r.body?.data?.messages?.length === 1);

    const run = await runCli(['audit', 'history', '--message', messageId, '--json'], sut.dataDir, { SWITCHBOARD_SECRET_KEY: secretKey });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const facts: { type: string; stream: string; service: string; requestId: string; summary: string }[] = JSON.parse(run.stdout).facts;
    expect(facts.map((f) => f.type)).toEqual(['DailyQuotaReserved', 'MessageAccepted', 'MessageSent', 'MessageDelivered', 'MessageRead', 'MessageReceived']);
    expect(facts.map((f) => f.service)).toEqual(['quota', 'messaging', 'messaging', 'messaging', 'messaging', 'messaging']);
    expect(facts.slice(1, 5).every((f) => f.stream === messageStream(messageId))).toBe(true);
    // The send request's id (X-Request-Id) is the correlation id of what it caused.
    const requestId = sent.headers.get('x-request-id');
    expect(facts.slice(0, 3).map((f) => f.requestId)).toEqual([requestId, requestId, requestId]);
    expect(facts[1]!.summary).toContain(`to ${contact}, session ${sessionId}, text "Your order #42 has shipped 📦"`);
    expect(facts[5]!.summary).toMatch(new RegExp(`^from ${contact}, .*to ${me}, session ${sessionId}, .*text "great, thanks"`));
  });

  it('exports the account over HTTP (admin key) as the CLI does, and the download verifies', async () => {
    const cliFile = join(files, 'cli.jsonl');
    const cli = await runCli(['audit', 'export', '--account', accountId, '--out', cliFile], sut.dataDir);
    expect([cli.code, cli.stderr]).toEqual([0, '']);

    const response = await fetch(`${sut.url}/v1/admin/audit/export?accountId=${accountId}&format=jsonl`, { headers: { authorization: `Bearer ${sut.adminKey}` } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="switchboard-audit-${accountId}-\\d{8}T\\d{6}Z\\.jsonl"$`));
    const body = await response.text();
    const httpFile = join(files, 'http.jsonl');
    writeFileSync(httpFile, body);

    const eventsOf = (text: string) => text.trimEnd().split('\n').slice(0, -1);
    const fromCli = eventsOf(readFileSync(cliFile, 'utf8'));
    const fromHttp = eventsOf(body);
    expect(fromCli.length).toBeGreaterThan(10);
    // The same rows; what the services recorded between the two reads can only come after.
    expect(fromHttp.slice(0, fromCli.length)).toEqual(fromCli);
    expect(JSON.parse(body.trimEnd().split('\n').at(-1)!).manifest).toMatchObject({ accountId, events: fromHttp.length });
    const verified = await runCli(['audit', 'verify', '--file', httpFile], sut.dataDir);
    expect([verified.code, verified.stderr]).toEqual([0, '']);
    expect(verified.stdout).toContain('No findings');
  });

  it('refuses the export to an account key (403) and a format it does not write (400)', async () => {
    const forbidden = await api.get(`/v1/admin/audit/export?accountId=${accountId}`);
    expect([forbidden.status, forbidden.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const badFormat = await admin.get(`/v1/admin/audit/export?accountId=${accountId}&format=xlsx`);
    expect(badFormat.status).toBe(400);
    expect(badFormat.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'query.format' }] });
  });
});
