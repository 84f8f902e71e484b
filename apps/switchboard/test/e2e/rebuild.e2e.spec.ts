import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { ApiClient, eventually } from '../support/http.js';
import { startSwitchboardUnderTest } from '../support/harness.js';
import type { Mode, SwitchboardUnderTest } from '../support/harness.js';

// `switchboard projections rebuild` against a running Switchboard: the API answers throughout,
// from the old read models and then the new ones, with the same bodies; a message sent meanwhile
// is in the new ones. Embedded: the CLI works on the server's files. Distributed (PostgreSQL
// stores): each service rebuilds its own read models when the CLI asks over NATS.
describe.each<Mode>(['embedded', 'distributed'])('projections rebuild while serving reads (%s mode)', (mode) => {
  let sut: SwitchboardUnderTest;
  let api: ApiClient;
  let sessionId: string;
  const sent: string[] = [];
  const suffix = `${String(process.pid % 10_000).padStart(4, '0')}${mode === 'embedded' ? 1 : 2}`;
  const to = `1556${suffix}02`;

  beforeAll(async () => {
    sut = await startSwitchboardUnderTest(mode);
    api = new ApiClient(sut.url, sut.apiKey);
    const created = await api.post('/v1/sessions', { name: 'rebuild' });
    sessionId = created.body.data.sessionId;
    await sut.emulator.scan(created.body.data.qrCode, `1555${suffix}01`);
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
    for (let i = 0; i < 20; i += 1) {
      const message = await api.post('/v1/messages/text', { sessionId, to, text: `order ${i} shipped` });
      expect(message.status).toBe(201);
      sent.push(message.body.data.messageId);
    }
    // Every receipt in (the emulator reads after a second): the bodies stop changing.
    for (const id of sent) await eventually(() => api.get(`/v1/messages/${id}`), (r) => r.body?.data?.status === 'read');
  }, 180_000);
  afterAll(async () => {
    await sut?.close();
  });

  it('answers every read throughout with the same bodies, and a message sent meanwhile shows in the new read models', async () => {
    // The message sent meanwhile adds to the history and moves the session's lastActivity; the rest stays as it was.
    const stable = sent.map((id) => `/v1/messages/${id}`);
    const paths = [...stable, `/v1/sessions/${sessionId}`, '/v1/sessions?limit=100', `/v1/messages?sessionId=${sessionId}&limit=50`];
    const before = new Map<string, unknown>();
    for (const path of paths) before.set(path, (await api.get(path)).body);

    const cliDir = mkdtempSync(join(tmpdir(), 'sb-rebuild-cli-'));
    const env: Record<string, string> = sut.natsUrl ? { SWITCHBOARD_NATS_URL: sut.natsUrl } : {};
    let done = false;
    const rebuilding = runCli(['projections', 'rebuild', '--json'], mode === 'embedded' ? sut.dataDir : cliDir, env).finally(() => (done = true));
    let reads = 0;
    let during: string | undefined;
    while (!done) {
      const path = paths[reads % paths.length]!;
      const read = await api.get(path);
      if (stable.includes(path)) expect([read.status, read.body]).toEqual([200, before.get(path)]);
      else expect([read.status, read.body.data.status ?? read.body.data.sessions?.[0]?.status ?? 'a page']).toEqual([200, path.startsWith('/v1/messages') ? 'a page' : 'connected']);
      reads += 1;
      if (during === undefined) {
        const message = await api.post('/v1/messages/text', { sessionId, to, text: 'sent during the rebuild' });
        expect(message.status).toBe(201);
        during = message.body.data.messageId as string;
      }
      await sleep(10);
    }
    const run = await rebuilding;
    rmSync(cliDir, { recursive: true, force: true });

    expect([run.code, run.stderr, run.code === 0 ? '' : run.stdout]).toEqual([0, '', '']);
    const report = JSON.parse(run.stdout) as { ok: boolean; rebuilt: { service: string; projection: string; events: number }[] };
    expect(report.rebuilt.map((r) => `${r.service} ${r.projection}`).sort()).toEqual(['events webhooks', 'messaging message-history', 'messaging message-status', 'sessions session-list']);
    expect(report.rebuilt.find((r) => r.projection === 'message-status')!.events).toBeGreaterThanOrEqual(20 * 4);
    expect(reads).toBeGreaterThan(0);
    for (const path of stable) expect([path, (await api.get(path)).body]).toEqual([path, before.get(path)]);
    const afterwards = await eventually(() => api.get(`/v1/messages/${during!}`), (r) => r.body?.data?.status === 'read');
    expect(afterwards.status).toBe(200);
    const history = await api.get(`/v1/messages?sessionId=${sessionId}&limit=50`);
    expect(history.body.data.messages).toHaveLength(21);
  });
});
